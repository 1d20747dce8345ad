"""Rewrites an sdist (.tar.gz) reproducibly, in place: setuptools stamps its entries with the
files' mtimes and the gzip header with the build time. Entries are sorted by name, every
mtime is EPOCH, owners 0 without names, no PAX mtime records, gzip without name and with
EPOCH as its time. Usage: sdist-normalize.py SDIST EPOCH"""

import gzip
import io
import sys
import tarfile

path, epoch = sys.argv[1], int(sys.argv[2])
with tarfile.open(path) as src:
    entries = [(m, src.extractfile(m).read() if m.isfile() else None) for m in src.getmembers()]
tar = io.BytesIO()
with tarfile.open(fileobj=tar, mode="w", format=tarfile.PAX_FORMAT) as dst:
    for member, data in sorted(entries, key=lambda e: e[0].name):
        member.mtime = epoch
        member.uid = member.gid = 0
        member.uname = member.gname = ""
        member.pax_headers = {}
        dst.addfile(member, io.BytesIO(data) if data is not None else None)
with open(path, "wb") as out:
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=epoch) as gz:
        gz.write(tar.getvalue())
