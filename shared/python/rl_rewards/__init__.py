"""Reward functions for verl, EasyR1, TRL and AReaL that call a reward service's POST /v1/score."""

__version__ = "0.1.0"
