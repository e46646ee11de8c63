#!/usr/bin/env bash
# The GPU check of rl_torch_engine (README.md beside this file):
#   infra/gpu/check.sh OUT_DIR [--smoke] [--device auto|cpu|cuda] [--rows N] [--seconds S] ...
# Runs with $PYTHON (default python3): torch, and transformers for the parity rows.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PYTHONPATH="$root/shared/python:$here${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 HF_HUB_DISABLE_PROGRESS_BARS=1 TRANSFORMERS_VERBOSITY=error
exec "${PYTHON:-python3}" "$here/check.py" "$@"
