"""One module per command; importing the package registers them all on `app`, in the order `--help` lists them."""

from .common import app, err


from . import diagnose, explain, rules, evaluate, suggest, watch, env, report, check  # noqa: E402,F401

__all__ = ["app", "err"]
