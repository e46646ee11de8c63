"""Stand-in for omegaconf's DictConfig as verl's reward managers read it (`config.reward.get(...)`, attribute access)."""


class DictConfig(dict):
    def __init__(self, content=None):
        super().__init__({k: DictConfig(v) if isinstance(v, dict) and not isinstance(v, DictConfig) else v for k, v in (content or {}).items()})

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as err:
            raise AttributeError(name) from err


def open_dict(config):
    import contextlib

    return contextlib.nullcontext(config)
