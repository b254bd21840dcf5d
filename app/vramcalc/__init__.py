"""vramcalc: how much GPU memory a transformer needs, component by component.

Pure Python, standard library only; runs on CPython 3.11+ and under Pyodide.

    >>> from vramcalc import parse_workload, estimate
    >>> breakdown = estimate(parse_workload({"model": "llama-3-8b", "seq": "8192"}))
    >>> breakdown.bytes_of("kv_cache")
    1073741824
"""

from .analysis.evaluate import estimate
from .analysis.fit import GpuFit, Verdict, fit_all
from .core.errors import ValidationError
from .inputs.options import DEFAULTS
from .inputs.parse import parse_config_json, parse_workload, parse_workload_lenient
from .memory.components import COMPONENTS, Breakdown, Component
from .workload import Workload

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
