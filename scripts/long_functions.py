#!/usr/bin/env python3
"""Lists C++ functions longer than a limit (default 80 lines, signature to closing brace) and
C++ files longer than a file limit (default 600 lines).

Usage: scripts/long_functions.py [--limit N] [--file-limit N] [ROOT...]
(default roots: src tools testing include tests; node_modules skipped; a Catch2 TEST_CASE body
is a test, not a helper, and is not counted)
Brace counting after stripping comments and string/char literals: a block opened after
`namespace`, `struct`, `class`, `union` or `enum` is a container, any other top-level block
in a container is a function (lambdas count towards their enclosing function). Exits 1 when
any function is longer than the limit.
"""
import re
import sys
from pathlib import Path

CONTAINER = re.compile(r"\b(namespace|struct|class|union|enum)\b[^()]*$")


def strip(text):
    """Comments and literals replaced by spaces, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i : j + 1]))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    text = strip(path.read_text(errors="replace"))
    text = re.sub(r"(?m)^[ \t]*#.*$", "", text)  # preprocessor lines
    stack = []  # per open brace: ("container"|"function"|"inner", start line)
    stmt_start, line = 1, 1
    pending = ""
    for ch in text:
        if ch == "\n":
            line += 1
            continue
        if ch == "{":
            inside_function = any(kind == "function" for kind, _ in stack)
            if inside_function:
                stack.append(("inner", line))
            elif CONTAINER.search(pending.strip()) or pending.strip().endswith("="):
                stack.append(("container", line))
            else:
                stack.append(("function", stmt_start))
            pending, stmt_start = "", line
        elif ch == "}":
            if stack:
                kind, start = stack.pop()
                if kind == "function":
                    yield start, line, pending_name(text, start)
            pending, stmt_start = "", line + 1
        elif ch == ";":
            pending, stmt_start = "", line + 1
        else:
            if not pending.strip() and not ch.isspace():
                stmt_start = line
            pending += ch


def pending_name(text, start):
    sig = " ".join(text.split("\n")[start - 1 : start + 3])
    m = re.search(r"([A-Za-z_][\w:~<>]*)\s*\(", sig)
    return m.group(1) if m else sig.strip()[:40]


def main():
    args = sys.argv[1:]
    limit, file_limit = 80, 600
    while args[:1] in (["--limit"], ["--file-limit"]):
        if args[0] == "--limit":
            limit = int(args[1])
        else:
            file_limit = int(args[1])
        args = args[2:]
    roots = [Path(a) for a in (args or ["src", "tools", "testing", "include", "tests"])]
    long_ones, long_files = [], []
    for root in roots:
        files = [root] if root.is_file() else sorted(root.rglob("*"))
        for f in files:
            if f.suffix not in (".cpp", ".h", ".hpp", ".cc") or "node_modules" in f.parts:
                continue
            lines = f.read_text(errors="replace").count("\n")
            if lines > file_limit:
                long_files.append((lines, str(f)))
            for start, end, name in functions(f):
                if end - start + 1 > limit and name not in ("TEST_CASE", "SCENARIO"):
                    long_ones.append((end - start + 1, f"{f}:{start}", name))
    for n, where, name in sorted(long_ones, reverse=True):
        print(f"{n:4d} lines  {where}  {name}")
    for n, where in sorted(long_files, reverse=True):
        print(f"{n:4d} lines  {where}  (file)")
    return 1 if long_ones or long_files else 0


if __name__ == "__main__":
    sys.exit(main())
