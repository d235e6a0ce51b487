import sys
from pathlib import Path

# tests/differential.py is shared by the tests and `make differential`.
sys.path.insert(0, str(Path(__file__).parent))
