"""qwen3doctor: read a vLLM or SGLang crash log and rank what broke, with the evidence and the fix."""

__version__ = "0.1.0"
