"""Not data: what ``from datasets import load_dataset`` finds at the repository's root without Hugging Face's package.

Python puts the current folder first on the import path, and this folder (the dataset card's) has the same name as
Hugging Face's ``datasets`` package. Where that package is installed it wins (a package beats a folder without
``__init__.py``) and this file is never read; where it is not, the import would fail with "cannot import name
'load_dataset' from 'datasets' (unknown location)". Python then looks for a module of the imported name in the
folder, finds this one, and the error says what to install instead.
"""

raise ImportError(
    "Hugging Face's datasets package is not installed (the 'datasets' found here is the dataset card's folder): "
    'pip install "qlsbench[data]" (or pip install datasets); pandas and qlsbench.data read the same files without it'
)
