"""Build a two-commit git repository from two consecutive PyPI sdists (release N, then N+1 at HEAD).

    python benchmarks/make_pair.py NAME V1 V2 DEST [--download-dir DIR]

The pairs the Still At Risk and witness benchmarks are measured on are built this way, so each
measurement can be repeated on a fresh machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("dest", type=Path)
    parser.add_argument("--download-dir", type=Path, default=None)
    args = parser.parse_args()
    if args.dest.exists():
        raise SystemExit(f"{args.dest} exists: give a new directory")
    with tempfile.TemporaryDirectory(prefix="make-pair-") as scratch:
        downloads = args.download_dir or Path(scratch) / "sdists"
        common.init_repo(args.dest)
        for version in (args.old, args.new):
            archive = common.download_sdist(args.name, version, downloads)
            tree = common.unpack_sdist(archive, Path(scratch) / version)
            common.replace_tree(args.dest, tree)
            print(f"{args.name} {version}: {common.commit_all(args.dest, f'{args.name} {version}')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
