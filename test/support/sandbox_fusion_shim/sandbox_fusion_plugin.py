"""Runs SandboxFusion's async tests (pytest-asyncio auto mode there) and records every test's outcome as JSON."""
import asyncio
import inspect
import json
import os

import pytest

_outcomes = {}


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**args))
        return True
    return None


def pytest_runtest_logreport(report):
    name = report.nodeid.split('/')[-1]
    if report.when == 'call' or report.outcome != 'passed':
        message = '' if report.passed else str(report.longrepr)[-2000:]
        _outcomes[name] = {'outcome': report.outcome, 'message': message}


def pytest_sessionfinish(session):
    path = os.environ.get('SANDBOX_FUSION_RESULTS')
    if path:
        with open(path, 'w') as f:
            json.dump(_outcomes, f)
