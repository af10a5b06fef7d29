# SPDX-License-Identifier: GPL-3.0-or-later
# commprof's capture, loaded by Python at start-up because `commprof record` / `confirm` put
# this folder first on PYTHONPATH. Being first, this file hides the system's own
# sitecustomize (Debian's runs apport's hook from /etc/python3.X), so that file is run here
# first: the user's interpreter must behave exactly as it does without commprof.
import os
import sys


def _run_shadowed_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        folder = os.path.abspath(entry or os.getcwd())
        if folder == here:
            continue
        candidate = os.path.join(folder, "sitecustomize.py")
        if os.path.isfile(candidate):
            with open(candidate, "rb") as f:
                code = compile(f.read(), candidate, "exec")
            exec(code, {"__name__": "sitecustomize", "__file__": candidate})
            return


try:
    _run_shadowed_sitecustomize()
except Exception:  # the system's hook failing must not stop the user's program
    pass

if os.environ.get("COMMPROF_CAPTURE_DIR"):
    import commprof_capture

    commprof_capture.install()
