"""Package list for setuptools; everything else lives in pyproject.toml.

`magics/`, `widgets/` and `kernels/` sit at the top of the repository but install as
`ti_notebook.magics`, `ti_notebook.widgets` and `ti_notebook.kernels` (the mapping is
`[tool.setuptools.package-dir]` in pyproject.toml). `packages.find` names a package after
its folder, so it cannot find those three; this file adds them and their subpackages.
"""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).resolve().parent
PACKAGE_DIR = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
    "package-dir"
]

packages = find_packages(where=str(ROOT), include=["ti_notebook", "ti_notebook.*"])
for name, folder in PACKAGE_DIR.items():
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(where=str(ROOT / folder))]

setup(packages=sorted(set(packages)))
