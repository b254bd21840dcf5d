"""vramcalc: how much GPU memory a transformer needs, component by component.

Pure Python, standard library only; runs on CPython 3.11+ and under Pyodide.

    >>> from vramcalc import parse_workload, estimate
    >>> breakdown = estimate(parse_workload({"model": "llama-3-8b", "seq": "8192"}))
    >>> breakdown.bytes_of("kv_cache")
    1073741824
"""

from .errors import ValidationError
from .fit import GpuFit, Verdict, fit_all
from .memory import COMPONENTS, Breakdown, Component, estimate
from .workload import DEFAULTS, Workload, parse_config_json, parse_workload, parse_workload_lenient

__all__ = [
    "COMPONENTS",
    "DEFAULTS",
    "Breakdown",
    "Component",
    "GpuFit",
    "ValidationError",
    "Verdict",
    "Workload",
    "estimate",
    "fit_all",
    "parse_config_json",
    "parse_workload",
    "parse_workload_lenient",
]
