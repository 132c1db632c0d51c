"""Talking to models over plain httpx: a registry of provider kinds (``kinds``), one HTTP seam (``http``), one
engine per wire format (``ollama``, ``openai``, ``replay``), the ask/re-ask loop (``ask``) and ``preflight``."""
