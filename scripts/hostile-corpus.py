#!/usr/bin/env python3
"""Writes the hostile corpus into DIR: pages and PDFs built to hang, exhaust or crash a parser,
and a library folder with files that must not be read. Standard library only.

    scripts/hostile-corpus.py DIR

DIR/pages/      what the fetcher and the library parse (served over HTTP by the tests and the
                benchmark, and indexed as a library folder):
  nested-divs.html     600,000 nested <div>s (3 MB)
  paragraphs.html      400,000 sibling paragraphs
  table.html           a table of 200,000 cells
  page-tree-loop.pdf   a page tree whose /Pages node lists itself as its kid
  xobject-loop.pdf     a form XObject that draws itself
  flate-bomb.pdf       two FlateDecode content streams that inflate to 400 MB each (~0.8 MB file)
DIR/library/    the above, plus
  huge.txt             70 MB of text (over the library's 64 MB limit)
  fifo.txt             a FIFO (reading it would block forever)
  loop.md              a symbolic link to itself
"""

import os
import shutil
import sys
import zlib

MB = 1024 * 1024


def html_page(title, body_parts):
    yield f"<!DOCTYPE html><html><head><title>{title}</title></head><body>"
    yield from body_parts
    yield "</body></html>\n"


def write_text(path, parts):
    with open(path, "w", encoding="utf-8") as f:
        for part in parts:
            f.write(part)


def nested_divs(n):
    yield "<div>" * n
    yield "deep"


def paragraphs(n):
    for i in range(n):
        yield f"<p>{i % 10}</p>\n"


def table(cells, per_row=100):
    yield "<table>"
    for _ in range(cells // per_row):
        yield "<tr>" + "<td>x</td>" * per_row + "</tr>\n"
    yield "</table>"


def pdf(objects):
    """A PDF of `objects` (bytes, numbered from 1) with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for o in offsets:
        out += f"{o:010} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


def stream(data, extra=b""):
    return b"<< /Length %d %s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"


FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def page_tree_loop():
    content = b"BT /F1 18 Tf 72 720 Td (loop) Tj ET"
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            # The /Pages node is its own kid (and its own parent).
            b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 /Parent 2 0 R >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
            b" /Resources << /Font << /F1 5 0 R >> >> >>",
            stream(content),
            FONT,
        ]
    )


def xobject_loop():
    page = b"BT /F1 18 Tf 72 720 Td (form) Tj ET /X1 Do"
    form = b"BT /F1 12 Tf 10 10 Td (again) Tj ET /X1 Do"
    return pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
            b" /Resources << /Font << /F1 6 0 R >> /XObject << /X1 5 0 R >> >> >>",
            stream(page),
            # The form's own resources name the form itself.
            stream(
                form,
                b"/Type /XObject /Subtype /Form /BBox [0 0 612 792]"
                b" /Resources << /Font << /F1 6 0 R >> /XObject << /X1 5 0 R >> >>",
            ),
            FONT,
        ]
    )


def deflated_spaces(size):
    """zlib of `size` spaces (valid, empty page content), about 1000:1, built in chunks."""
    z = zlib.compressobj(9)
    chunk = b" " * MB
    parts = [z.compress(chunk) for _ in range(size // MB)]
    parts.append(z.flush())
    return b"".join(parts)


def flate_bomb(streams=2, inflated=400 * MB):
    bomb = deflated_spaces(inflated)
    # 1 catalog, 2 page tree, 3 font, then each page (4, 6, …) followed by its content.
    page_numbers = [4 + 2 * i for i in range(streams)]
    kids = " ".join(f"{n} 0 R" for n in page_numbers)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {streams} >>".encode(),
        FONT,
    ]
    for n in page_numbers:
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
            b" /Resources << /Font << /F1 3 0 R >> >> >>" % (n + 1)
        )
        objects.append(stream(bomb, b"/Filter /FlateDecode"))
    return pdf(objects)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    pages = os.path.join(root, "pages")
    library = os.path.join(root, "library")
    os.makedirs(pages, exist_ok=True)
    os.makedirs(library, exist_ok=True)

    write_text(os.path.join(pages, "nested-divs.html"), html_page("Deep", nested_divs(600_000)))
    write_text(os.path.join(pages, "paragraphs.html"), html_page("Wide", paragraphs(400_000)))
    write_text(os.path.join(pages, "table.html"), html_page("Table", table(200_000)))
    for name, build in [
        ("page-tree-loop.pdf", page_tree_loop),
        ("xobject-loop.pdf", xobject_loop),
        ("flate-bomb.pdf", flate_bomb),
    ]:
        with open(os.path.join(pages, name), "wb") as f:
            f.write(build())

    for name in os.listdir(pages):
        shutil.copyfile(os.path.join(pages, name), os.path.join(library, name))
    with open(os.path.join(library, "huge.txt"), "w", encoding="utf-8") as f:
        line = "A line of an enormous text file that no library should read whole.\n"
        for _ in range(70 * MB // len(line) + 1):
            f.write(line)
    fifo = os.path.join(library, "fifo.txt")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    loop = os.path.join(library, "loop.md")
    if not os.path.lexists(loop):
        os.symlink("loop.md", loop)


if __name__ == "__main__":
    main()
