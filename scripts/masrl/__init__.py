"""masrl: the corpus of research on reinforcement learning for LLM-based multi-agent systems."""

__version__ = "0.1.0"
