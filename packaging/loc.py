"""Lines of code that are neither blank, comments nor docstrings, for docs/PACKAGING.md.

    python packaging/loc.py [PATH ...]     (default: python/ray and java/src/main/java)

Python: lines holding a token other than a comment, and not inside a docstring (the first
string statement of a module, class or function). Java: lines with something left after
removing // and /* */ comments.
"""

import ast
import io
import re
import sys
import tokenize
from pathlib import Path


def python_loc(text: str) -> int:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return 0
    doc_lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            first = body[0] if body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                doc_lines.update(range(first.lineno, first.end_lineno + 1))
    code_lines = set()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER, tokenize.ENCODING}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in skip:
            code_lines.update(range(tok.start[0], tok.end[0] + 1))
    return len(code_lines - doc_lines)


_JAVA_COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/|("(?:\\.|[^"\\])*")', re.S)


def java_loc(text: str) -> int:
    def keep_strings(m):
        if m.group(1):
            return m.group(1)
        return "\n" * m.group(0).count("\n")  # a block comment keeps its line breaks
    stripped = _JAVA_COMMENT.sub(keep_strings, text)
    return sum(1 for line in stripped.splitlines() if line.strip())


def count(path: Path):
    py = java = 0
    files = [path] if path.is_file() else sorted(path.rglob("*"))
    for f in files:
        if "__pycache__" in f.parts or not f.is_file():
            continue
        if f.suffix == ".py":
            py += python_loc(f.read_text(errors="replace"))
        elif f.suffix == ".java":
            java += java_loc(f.read_text(errors="replace"))
    return py, java


def main(argv):
    root = Path(__file__).resolve().parents[1]
    paths = [Path(a) for a in argv] or [root / "python" / "ray", root / "java" / "src" / "main" / "java"]
    for p in paths:
        py, java = count(p)
        print(f"{p}: python {py}, java {java}")


if __name__ == "__main__":
    main(sys.argv[1:])
