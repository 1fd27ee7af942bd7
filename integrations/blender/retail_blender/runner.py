# retail's command line and process: the options the panel offers mapped onto retail's real
# flags (retail --help), run without a shell under a timeout, stderr captured. No bpy here.
import subprocess

# docs/exit-codes.md
EXIT_MEANINGS = {
    1: "usage error",
    2: "invalid input",
    3: "unsupported input",
    4: "output not written",
    5: "some batch files failed",
    6: "a QA check failed",
}


class RetailError(Exception):
    """A run that produced no usable output; str() is the message for Blender's report area."""


def clip_list(text):
    return [c.strip() for c in text.split(",") if c.strip()]


def selector_list(text):
    """--hair selectors from the panel's comma-separated field (docs/hair.md: a mesh name, a
    material name or M/P)."""
    return [c.strip() for c in text.split(",") if c.strip()]


def build_args(binary, in_path, out_path, report_path, mode="chain", carry=None, clips=None,
               tail=None, hair=None, page=None):
    """The argv of one run. carry: degrees or None (retail's default); clips: names or None
    (all); tail: a mesh name for --tail or None (detection decides); hair: selectors, one
    --hair each; page: the QA page's path for --html or None."""
    args = [binary, in_path, out_path, "--report", report_path, "--mode", mode]
    if carry is not None:
        args += ["--carry", "%g" % carry]
    if clips:
        args += ["--clips", ",".join(clips)]
    if tail:
        args += ["--tail", tail]
    for sel in hair or []:
        args += ["--hair", sel]
    if page:
        args += ["--html", page]
    return args


def error_line(stderr):
    """retail prints exactly one 'error: FILE: message' line when it fails (docs/exit-codes.md)."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    for line in reversed(lines):
        if line.startswith("error:"):
            return line
    return lines[-1] if lines else "(no message on stderr)"


def run(args, timeout):
    """Run retail; returns its stderr. Raises RetailError on a non-zero exit or a timeout."""
    try:
        done = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              errors="replace", timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise RetailError("retail did not finish within %d s (raise the timeout in the add-on "
                          "preferences)" % timeout) from None
    except OSError as e:
        raise RetailError("cannot run %s: %s" % (args[0], e)) from None
    if done.returncode != 0:
        meaning = EXIT_MEANINGS.get(done.returncode, "failed")
        if done.returncode < 0:
            meaning = "killed by signal %d" % -done.returncode
        raise RetailError("retail exit %d (%s): %s" %
                          (done.returncode, meaning, error_line(done.stderr)))
    return done.stderr
