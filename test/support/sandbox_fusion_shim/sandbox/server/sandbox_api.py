"""The request and response models SandboxFusion's tests build, without pydantic."""
from enum import Enum

# SandboxFusion's RunCodeRequest fields and their defaults.
_REQUEST_DEFAULTS = {
    'compile_timeout': 10,
    'run_timeout': 10,
    'memory_limit_MB': -1,
    'stdin': None,
    'files': {},
    'fetch_files': [],
}


class RunStatus(str, Enum):
    Success = 'Success'
    Failed = 'Failed'
    SandboxError = 'SandboxError'


class RunCodeRequest:
    def __init__(self, **fields):
        missing = {'code', 'language'} - fields.keys()
        if missing:
            raise TypeError(f'RunCodeRequest: missing {sorted(missing)}')
        self._fields = {**_REQUEST_DEFAULTS, **fields}

    def model_dump(self):
        return dict(self._fields)


class _Record:
    """Attribute access to a JSON object; absent fields read as None, as pydantic's optional fields do."""

    def __init__(self, data):
        self._data = data

    def __getattr__(self, name):
        if name.startswith('_'):
            raise AttributeError(name)
        value = self._data.get(name)
        return _Record(value) if isinstance(value, dict) and name != 'files' else value

    def model_dump_json(self, indent=None):
        import json
        return json.dumps(self._data, indent=indent)

    def __repr__(self):
        return f'{type(self).__name__}({self._data!r})'


class RunCodeResponse(_Record):
    def __init__(self, **data):
        super().__init__(data)
