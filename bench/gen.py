#!/usr/bin/env python3
"""Deterministic input generators for the rsconform benchmarks.

  gen.py resourcelist FILE [N]    Resource List, N entries (default 50,000), each
                                  with <lastmod> and <rs:md hash="md5:.. sha-256:.."
                                  length type>: ~14 MB, the shape the mock Source serves
  gen.py changelist FILE [N]      Change List, N entries in forward chronological
                                  order (change + datetime), with an up link
  gen.py biglist FILE [N]         Resource List of N entries with long URLs, extra
                                  (foreign-namespace) attributes and a duplicate link
                                  per entry: ~47 MB, just under the 50 MB limit
  gen.py oneline FILE [N]         the resourcelist document with its newlines removed:
                                  one line of ~14 MB (what several generators emit)
  gen.py attrs FILE [N]           a Resource List of one entry whose <rs:md> has N
                                  foreign-namespace attributes
  gen.py package DIR MB BITSTREAMS [tamper]
                                  a Resource Dump package DIR/package.zip (ZIP_STORED,
                                  manifest.xml + BITSTREAMS files of MB/BITSTREAMS MB of
                                  pseudo-random data, sha-256 in the manifest) and a
                                  tiny site around it: DIR/site/{.well-known/resourcesync,
                                  dataset1/capabilitylist.xml, dataset1/resourcedump.xml};
                                  with "tamper", the manifest gives a wrong sha-256 for the
                                  first bitstream (a fixity check must notice)
Every output depends only on the arguments (no clock, fixed seeds).
"""
import hashlib
import os
import random
import sys
import zipfile

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:rs="http://www.openarchives.org/rs/terms/"%s>\n')
TYPES = [("txt", "text/plain"), ("html", "text/html"), ("json", "application/json")]
BASE = "http://bench.example.org"


def ts(sec):
    """2025-01-01T00:00:00Z + sec seconds, without the datetime module's cost."""
    d, s = divmod(sec, 86400)
    # 2025 is not a leap year; keep within 2025 (sec < 365 days).
    months = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    m = 0
    while d >= months[m]:
        d -= months[m]
        m += 1
    return "2025-%02d-%02dT%02d:%02d:%02dZ" % (m + 1, d + 1, s // 3600, s // 60 % 60, s % 60)


def hashes(i):
    b = b"resource %d" % i
    return hashlib.md5(b).hexdigest(), hashlib.sha256(b).hexdigest()


def resourcelist(path, n):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(HEAD % "")
        f.write('  <rs:ln rel="up" href="%s/dataset1/capabilitylist.xml"/>\n' % BASE)
        f.write('  <rs:md capability="resourcelist" at="2025-12-31T00:00:00Z"/>\n')
        for i in range(n):
            ext, typ = TYPES[i % 3]
            md5, sha = hashes(i)
            f.write('  <url>\n    <loc>%s/res/%07d.%s</loc>\n    <lastmod>%s</lastmod>\n'
                    '    <rs:md hash="md5:%s sha-256:%s" length="%d" type="%s"/>\n  </url>\n'
                    % (BASE, i, ext, ts((i * 7919) % 31_000_000), md5, sha, 200 + (i * 37) % 4000, typ))
        f.write("</urlset>\n")


def changelist(path, n):
    changes = ["created", "updated", "updated", "deleted"]
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(HEAD % "")
        f.write('  <rs:ln rel="up" href="%s/dataset1/capabilitylist.xml"/>\n' % BASE)
        f.write('  <rs:md capability="changelist" from="2025-01-01T00:00:00Z"/>\n')
        for i in range(n):
            ext, typ = TYPES[i % 3]
            t = ts(60 + i * 300)          # forward chronological order, 5 minutes apart
            ch = changes[i % 4]
            loc = "%s/res/%07d.%s" % (BASE, (i * 104729) % 1_000_000, ext)
            if ch == "deleted":
                f.write('  <url>\n    <loc>%s</loc>\n    <rs:md change="deleted" datetime="%s"/>\n  </url>\n'
                        % (loc, t))
            else:
                md5, sha = hashes(i)
                f.write('  <url>\n    <loc>%s</loc>\n    <lastmod>%s</lastmod>\n'
                        '    <rs:md change="%s" datetime="%s" hash="md5:%s sha-256:%s" length="%d" type="%s"/>\n  </url>\n'
                        % (loc, t, ch, t, md5, sha, 200 + (i * 37) % 4000, typ))
        f.write("</urlset>\n")


def biglist(path, n):
    rnd = random.Random(4242)
    words = ["collection", "archive", "dataset", "record", "object", "item", "series",
             "volume", "issue", "page", "image", "manuscript", "periodical", "letters"]
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(HEAD % ' xmlns:ex="http://bench.example.org/ns/extension"')
        f.write('  <rs:ln rel="up" href="%s/dataset1/capabilitylist.xml"/>\n' % BASE)
        f.write('  <rs:md capability="resourcelist" at="2025-12-31T00:00:00Z"/>\n')
        for i in range(n):
            ext, typ = TYPES[i % 3]
            md5, sha = hashes(i)
            segs = "/".join("%s-%04d" % (rnd.choice(words), rnd.randrange(10000)) for _ in range(14))
            loc = "%s/repository/%s/%08d.%s?version=%d&amp;format=%s" % (BASE, segs, i, ext, i % 17, ext)
            mirror = "http://mirror-%d.bench.example.net/%s/%08d.%s" % (i % 5, segs, i, ext)
            f.write('  <url>\n    <loc>%s</loc>\n    <lastmod>%s</lastmod>\n'
                    '    <rs:md hash="md5:%s sha-256:%s" length="%d" type="%s" encoding="identity"'
                    ' ex:collection="%s" ex:checksum-origin="ingest-%08d" ex:note="generated entry %d of %d for the size benchmark"/>\n'
                    '    <rs:ln rel="duplicate" href="%s" modified="%s" pri="%d"/>\n'
                    '  </url>\n'
                    % (loc, ts((i * 7919) % 31_000_000), md5, sha, 200 + (i * 37) % 4000, typ,
                       segs.split("/")[0], i, i + 1, n, mirror,
                       ts((i * 7919) % 31_000_000), 1 + i % 5))
        f.write("</urlset>\n")


def package(d, mb, count, tamper=False):
    os.makedirs(d, exist_ok=True)
    size = mb * 1024 * 1024 // count
    zpath = os.path.join(d, "package.zip")
    rnd = random.Random(1234)
    shas = []
    # Bitstreams first (streamed), manifest last: ZIP order does not matter to readers.
    with zipfile.ZipFile(zpath, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        for k in range(count):
            data = rnd.randbytes(size)
            shas.append(hashlib.sha256(data).hexdigest())
            if tamper and k == 0:
                shas[0] = hashlib.sha256(b"not the bitstream").hexdigest()
            zi = zipfile.ZipInfo("resources/bits-%04d.bin" % k, date_time=(2025, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_STORED
            z.writestr(zi, data)
        m = [HEAD % "",
             '  <rs:ln rel="up" href="%s/dataset1/capabilitylist.xml"/>\n' % BASE,
             '  <rs:md capability="resourcedump-manifest" at="2025-06-01T00:00:00Z" completed="2025-06-01T00:10:00Z"/>\n']
        for k in range(count):
            m.append('  <url>\n    <loc>%s/res/bits-%04d.bin</loc>\n    <lastmod>2025-05-01T00:00:00Z</lastmod>\n'
                     '    <rs:md hash="sha-256:%s" length="%d" type="application/octet-stream" path="/resources/bits-%04d.bin"/>\n  </url>\n'
                     % (BASE, k, shas[k], size, k))
        m.append("</urlset>\n")
        zi = zipfile.ZipInfo("manifest.xml", date_time=(2025, 1, 1, 0, 0, 0))
        zi.compress_type = zipfile.ZIP_STORED
        z.writestr(zi, "".join(m))
    zsize = os.path.getsize(zpath)
    site = os.path.join(d, "site")
    os.makedirs(os.path.join(site, ".well-known"), exist_ok=True)
    os.makedirs(os.path.join(site, "dataset1"), exist_ok=True)
    with open(os.path.join(site, ".well-known", "resourcesync"), "w") as f:
        f.write(HEAD % "" +
                '  <rs:ln rel="describedby" href="%s/about.html"/>\n'
                '  <rs:md capability="description"/>\n'
                '  <url>\n    <loc>%s/dataset1/capabilitylist.xml</loc>\n    <rs:md capability="capabilitylist"/>\n'
                '    <rs:ln rel="describedby" href="%s/dataset1/about.html"/>\n  </url>\n'
                '</urlset>\n' % (BASE, BASE, BASE))
    with open(os.path.join(site, "dataset1", "capabilitylist.xml"), "w") as f:
        f.write(HEAD % "" +
                '  <rs:ln rel="describedby" href="%s/dataset1/about.html"/>\n'
                '  <rs:ln rel="up" href="%s/.well-known/resourcesync"/>\n'
                '  <rs:md capability="capabilitylist"/>\n'
                '  <url>\n    <loc>%s/dataset1/resourcedump.xml</loc>\n    <rs:md capability="resourcedump"/>\n  </url>\n'
                '</urlset>\n' % (BASE, BASE, BASE))
    with open(os.path.join(site, "dataset1", "resourcedump.xml"), "w") as f:
        f.write(HEAD % "" +
                '  <rs:ln rel="up" href="%s/dataset1/capabilitylist.xml"/>\n'
                '  <rs:md capability="resourcedump" at="2025-06-01T00:00:00Z" completed="2025-06-01T00:10:00Z"/>\n'
                '  <url>\n    <loc>%s/dataset1/package.zip</loc>\n    <lastmod>2025-06-01T00:10:00Z</lastmod>\n'
                '    <rs:md type="application/zip" length="%d" at="2025-06-01T00:00:00Z" completed="2025-06-01T00:10:00Z"/>\n'
                '    <rs:ln rel="contents" href="%s/dataset1/manifest.xml" type="application/xml"/>\n  </url>\n'
                '</urlset>\n' % (BASE, BASE, zsize, BASE))
    # The manifest, also published next to the package (rel="contents").
    with zipfile.ZipFile(zpath) as z, open(os.path.join(site, "dataset1", "manifest.xml"), "wb") as f:
        f.write(z.read("manifest.xml"))
    # The package itself is served from the site folder through a hard link (no copy).
    link = os.path.join(site, "dataset1", "package.zip")
    if os.path.exists(link):
        os.remove(link)
    os.link(zpath, link)
    # Last-Modified of the package (served from the file's mtime) = its <lastmod>.
    t = 1748736600  # 2025-06-01T00:10:00Z
    os.utime(zpath, (t, t))


def oneline(path, n):
    """The Resource List of resourcelist() with every newline removed: one line."""
    resourcelist(path + ".tmp", n)
    with open(path + ".tmp", encoding="utf-8") as f:
        data = f.read().replace("\n", "")
    os.remove(path + ".tmp")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(data)


def attrs(path, n):
    """A Resource List of one entry whose rs:md has n foreign-namespace attributes."""
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(HEAD % ' xmlns:ex="http://bench.example.org/ns/extension"')
        f.write('  <rs:ln rel="up" href="%s/dataset1/capabilitylist.xml"/>\n' % BASE)
        f.write('  <rs:md capability="resourcelist" at="2025-12-31T00:00:00Z"/>\n')
        f.write('  <url>\n    <loc>%s/res/0.txt</loc>\n    <rs:md length="1"' % BASE)
        for i in range(n):
            f.write(' ex:a%d="v%d"' % (i, i))
        f.write('/>\n  </url>\n</urlset>\n')


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, out = argv[1], argv[2]
    if cmd == "package":
        package(out, int(argv[3]), int(argv[4]), len(argv) > 5 and argv[5] == "tamper")
        return
    n = int(argv[3]) if len(argv) > 3 else 50000
    {"resourcelist": resourcelist, "changelist": changelist, "biglist": biglist,
     "oneline": oneline, "attrs": attrs}[cmd](out, n)


if __name__ == "__main__":
    main(sys.argv)
