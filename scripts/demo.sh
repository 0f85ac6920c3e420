#!/usr/bin/env bash
# The README's first command: set up, build, and run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m zambezi demo "$@"
