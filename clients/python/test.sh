#!/bin/sh
# The Python client's tests (npm run test:python): unit tests against a scripted local server,
# then the client against the service: TABULAR_BASE_URL and TABULAR_API_KEY when set, else
# `npm start` on free ports. PYTHON picks the interpreter (default: the venv .ci/run makes,
# .venv-python, else python3); the installed tabular_ml is tested, else the source beside this.
set -eu
cd "$(dirname "$0")/../.."
PY=${PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x .venv-python/bin/python ]; then PY=.venv-python/bin/python; else PY=python3; fi
fi
if ! "$PY" -c 'import tabular_ml' 2>/dev/null; then
  echo "tabular_ml is not installed for $PY: testing the source in clients/python" >&2
  PYTHONPATH="clients/python${PYTHONPATH:+:$PYTHONPATH}"
  export PYTHONPATH
fi
exec "$PY" -W error::ResourceWarning -m unittest discover -s clients/python/tests -t clients/python/tests -v "$@"
