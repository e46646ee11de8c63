"""SandboxFusion's CommandRunStatus (sandbox/runners/types.py)."""
from enum import Enum


class CommandRunStatus(str, Enum):
    Finished = 'Finished'
    Error = 'Error'
    TimeLimitExceeded = 'TimeLimitExceeded'
