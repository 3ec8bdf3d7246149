"""Message content of model calls, kept beside a trace, never inside it.

A trace holds no content: a model call's event names its content by ``content_ref``, a hash of
it (``sha256:`` and 64 hex digits). The content itself goes to the trace's side store, a JSON
Lines file beside it (``run.json`` keeps ``run.content.jsonl``), one line per distinct content:
``{"ref": ..., "input": [messages], "output": [messages]}``. Messages take the chat shape that
training libraries read: ``{"role": ..., "content": text}``, and ``tool_calls`` (each
``{"type": "function", "function": {"name": ..., "arguments": JSON text}}``) on an assistant
message that calls tools.

:func:`call_content` reads a span's content where the conventions put it:

* OpenTelemetry GenAI attributes ``gen_ai.input.messages`` and ``gen_ai.output.messages`` (messages of
  ``parts``: ``text``, ``tool_call``, ``tool_call_response``), with ``gen_ai.system_instructions``;
* the GenAI conventions' older span events ``gen_ai.system.message``, ``gen_ai.user.message``,
  ``gen_ai.assistant.message``, ``gen_ai.tool.message`` (``content``) and ``gen_ai.choice``
  (``message``), whose content may be a JSON list of blocks (``text``, ``toolUse``,
  ``toolResult``, as Strands Agents writes them);
* OpenInference's ``llm.input_messages.N.message.*`` and ``llm.output_messages.N.message.*``
  (``role``, ``content`` or ``contents.M.message_content.text``, ``tool_calls.M.tool_call.function.*``).

Pure functions; the importer and the exporter read and write the files.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

STORE_SUFFIX = ".content.jsonl"
REF_PREFIX = "sha256:"
GEN_AI_INPUT, GEN_AI_OUTPUT, GEN_AI_SYSTEM = (
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
)
# The older GenAI span events that carry messages, and the role each stands for.
GEN_AI_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
GEN_AI_CHOICE = "gen_ai.choice"
_OI = re.compile(r"llm\.(input|output)_messages\.(\d+)\.message\.(.+)")
_OI_PART = re.compile(r"contents\.(\d+)\.message_content\.text")
_OI_CALL = re.compile(r"tool_calls\.(\d+)\.tool_call\.function\.(name|arguments)")

Message = dict[str, Any]


def store_path(trace: Path) -> Path:
    """The side store of the trace in *trace*: ``run.json`` keeps ``run.content.jsonl``."""
    return trace.with_name(trace.name.removesuffix(".json") + STORE_SUFFIX)


def ref_of(record: dict[str, Any]) -> str:
    """The ``content_ref`` of a call's content: the SHA-256 of its canonical JSON."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return REF_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


def store_text(records: dict[str, dict[str, Any]]) -> str:
    """The side store's text for *records* (ref -> content), in the order they were met."""
    return "".join(
        json.dumps({"ref": ref, **record}, ensure_ascii=False, separators=(",", ":")) + "\n"
        for ref, record in records.items()
    )


def read_store(text: str) -> dict[str, dict[str, Any]]:
    """Ref -> content of a side store's text (lines that are not content records are skipped)."""
    out: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("ref"), str):
            out[item["ref"]] = {"input": item.get("input") or [], "output": item.get("output") or []}
    return out


def call_content(attributes: dict[str, Any], events: Any) -> dict[str, list[Message]] | None:
    """The input and output messages of a model call's span, or None when it carries none."""
    found = _gen_ai(attributes) or _openinference(attributes) or _gen_ai_events(events)
    if found is None:
        return None
    given, answer = found
    if not answer or not any(m.get("content") for m in [*given, *answer]):
        return None  # no answer recorded, or the shapes without their text: the framework's capture is off
    return {"input": given, "output": answer}


def _message(role: str, text: str = "", calls: list[dict[str, Any]] | None = None) -> Message:
    out: Message = {"role": role, "content": text}
    if calls:
        out["tool_calls"] = calls
    return out


def _call(name: Any, arguments: Any) -> dict[str, Any]:
    if arguments is None:
        arguments = {}
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"type": "function", "function": {"name": str(name or ""), "arguments": text}}


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _loaded(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _gen_ai(attributes: dict[str, Any]) -> tuple[list[Message], list[Message]] | None:
    given, answer = _loaded(attributes.get(GEN_AI_INPUT)), _loaded(attributes.get(GEN_AI_OUTPUT))
    if not isinstance(given, list) and not isinstance(answer, list):
        return None
    system = _loaded(attributes.get(GEN_AI_SYSTEM))
    out_in = [_message("system", _parts_text(system))] if isinstance(system, list) and _parts_text(system) else []
    out_in += [m for item in (given if isinstance(given, list) else []) for m in _parts_message(item)]
    out_out = [m for item in (answer if isinstance(answer, list) else []) for m in _parts_message(item)]
    return out_in, out_out


def _parts_text(parts: Iterable[Any]) -> str:
    return "".join(
        _text(p.get("content")) for p in parts if isinstance(p, dict) and p.get("type") == "text" and p.get("content")
    )


def _parts_message(item: Any) -> list[Message]:
    """One GenAI message (role and parts) as chat messages: tool responses become tool messages."""
    if not isinstance(item, dict):
        return []
    role = str(item.get("role") or "user")
    parts = item.get("parts")
    if not isinstance(parts, list):
        return [_message(role, _text(item.get("content")))]
    calls = [
        _call(p.get("name"), p.get("arguments")) for p in parts if isinstance(p, dict) and p.get("type") == "tool_call"
    ]
    responses = [
        _message("tool", _text(p.get("response") if "response" in p else p.get("result")))
        for p in parts
        if isinstance(p, dict) and p.get("type") == "tool_call_response"
    ]
    text = _parts_text(parts)
    out = [_message(role, text, calls)] if text or calls or not responses else []
    return out + responses


def _openinference(attributes: dict[str, Any]) -> tuple[list[Message], list[Message]] | None:
    found: dict[str, dict[int, dict[str, Any]]] = {"input": {}, "output": {}}
    for key, value in attributes.items():
        if not key.startswith("llm."):
            continue
        match = _OI.fullmatch(key)
        if match is None:
            continue
        side, n, rest = match.group(1), int(match.group(2)), match.group(3)
        slot = found[side].setdefault(n, {"parts": {}, "calls": {}})
        if rest in ("role", "content", "name", "tool_call_id"):
            slot[rest] = value
        elif (part := _OI_PART.fullmatch(rest)) is not None:
            slot["parts"][int(part.group(1))] = value
        elif (call := _OI_CALL.fullmatch(rest)) is not None:
            slot["calls"].setdefault(int(call.group(1)), {})[call.group(2)] = value
    if not found["input"] and not found["output"]:
        return None

    def messages(side: str) -> list[Message]:
        out = []
        for _, slot in sorted(found[side].items()):
            text = _text(slot.get("content")) or "".join(_text(v) for _, v in sorted(slot["parts"].items()))
            calls = [_call(c.get("name"), c.get("arguments", "")) for _, c in sorted(slot["calls"].items())]
            out.append(_message(str(slot.get("role") or ("assistant" if side == "output" else "user")), text, calls))
        return out

    return messages("input"), messages("output")


def _gen_ai_events(events: Any) -> tuple[list[Message], list[Message]] | None:
    if not isinstance(events, list):
        return None
    given: list[Message] = []
    answer: list[Message] = []
    for event in events:
        if not isinstance(event, dict):
            continue
        name = event.get("name")
        if name not in GEN_AI_EVENTS and name != GEN_AI_CHOICE:
            continue
        attributes = _event_attributes(event.get("attributes"))
        if name == GEN_AI_CHOICE:
            answer.append(_blocks_message("assistant", attributes.get("message")))
        else:
            given.append(_blocks_message(GEN_AI_EVENTS[name], attributes.get("content")))
    if not given and not answer:
        return None
    return given, answer


def _event_attributes(raw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict) and isinstance(item.get("key"), str) and isinstance(item.get("value"), dict):
            values = list(item["value"].values())
            out[item["key"]] = values[0] if len(values) == 1 else None
    return out


def _blocks_message(role: str, raw: Any) -> Message:
    """A message whose content is text, or a JSON list of blocks (text, toolUse, toolResult)."""
    blocks = _loaded(raw) if isinstance(raw, str) and raw.lstrip().startswith("[") else None
    if not isinstance(blocks, list):
        return _message(role, _text(raw))
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if "text" in block:
            texts.append(_text(block["text"]))
        elif isinstance(block.get("toolUse"), dict):
            use = block["toolUse"]
            calls.append(_call(use.get("name"), use.get("input", {})))
        elif isinstance(block.get("toolResult"), dict):
            role = "tool"
            result = block["toolResult"].get("content")
            parts = result if isinstance(result, list) else [result]
            texts.extend(_text(p.get("text")) if isinstance(p, dict) else _text(p) for p in parts)
    return _message(role, "".join(texts), calls)
