# The report's summary (docs/report-schema.md, retail.report/1) as plain data for the panel and
# for scripts: pieces with their decision and reason, chains, the harm check's rejections, the
# skin left torn, hair chains, the tail's torn share before -> after in the worst clip, warnings.
# summarize() takes the parsed report; outcome() says in one line what the run did; lines()
# renders the summary for the panel.
SCHEMA = "retail.report/1"


def _clip_name(name):
    return name.rsplit("|", 1)[-1]


def _worst_clip(c):
    worst = None
    for clip in c.get("stretch", {}).get("clips", []):
        before = clip["original"]["torn_percent"]
        after = clip["result"]["torn_percent"]
        # The worst clip is the one whose tail tore most on the input rig; ties: the one torn
        # more after, then the first clip.
        if worst is None or (before, after) > (worst["torn_before"], worst["torn_after"]):
            worst = {"clip": clip["name"], "torn_before": before, "torn_after": after}
    return worst


def _character(c):
    pieces = [{"id": p["id"], "decision": p["decision"], "region": p.get("region", ""),
               "vertices": p.get("vertices", 0), "reason": p.get("reason", "")}
              for p in c.get("pieces", [])]
    chains = [{"piece": ch["piece"], "bones": list(ch.get("bones", [])), "K": ch.get("K", 0),
               "rigid": bool(ch.get("rigid", False)), "length": ch.get("L", 0.0),
               "distance_before": ch.get("weighted_bone_distance", {}).get("before"),
               "distance_after": ch.get("weighted_bone_distance", {}).get("after")}
              for ch in c.get("chains", [])]
    left_torn = [{"piece": t.get("piece"), "vertices": t.get("vertices", 0),
                  "torn_percent": t.get("torn_percent"), "clip": t.get("clip")}
                 for t in c.get("left_torn", [])]
    hair = c.get("hair") or {}
    hair_chains = [{"selector": h.get("selector", ""),
                    "bones": [b for b in h.get("bones", []) if not b.endswith("_End")],
                    "length": h.get("length", 0.0)} for h in hair.get("chains", [])]
    hair_left = [{"selector": h.get("selector", ""), "reason": h.get("reason", "")}
                 for h in hair.get("left", [])]
    worst_after = max((clip["result"]["torn_percent"]
                       for clip in c.get("stretch", {}).get("clips", [])), default=None)
    return {"height": c.get("height"), "pieces": pieces, "chains": chains,
            "worst_clip": _worst_clip(c), "worst_torn_after": worst_after,
            "left_torn": left_torn, "hair_chains": hair_chains, "hair_left": hair_left,
            "verdicts": [h.get("verdict", "") for h in c.get("harm_check", [])]}


def summarize(report):
    if report.get("schema") != SCHEMA:
        raise ValueError("not a %s report: %r" % (SCHEMA, report.get("schema")))
    return {"mode": report.get("mode", ""),
            "characters": [_character(c) for c in report.get("characters", [])],
            "warnings": list(report.get("warnings", [])),
            "failures": list(report.get("failures", []))}


def tail_found(summary):
    """True when some character got a tail chain (or a rigid tail in mode rigid)."""
    return any(ch["chains"] for ch in summary["characters"])


def rejected(summary):
    """The pieces detection took for a tail whose change the harm check refused (decision
    tail_rejected: the piece was left as it came), each with its reason."""
    return [p for c in summary["characters"] for p in c["pieces"]
            if p["decision"] == "tail_rejected"]


def _why(reason):
    """A stepped piece's reason without the rule's name and the 'left as it was' tail."""
    text = reason
    if text.startswith("harm check: "):
        text = text[len("harm check: "):]
    if text.endswith(": left as it was"):
        text = text[:-len(": left as it was")]
    return text


def outcome(summary):
    """(level, message) for Blender's report area: what the run did, truthfully. Level is
    'INFO' when every tail found got its chain and nothing was left torn, else 'WARNING'.
    The cases (docs/report-schema.md): a chain added; a tail found but rejected by the harm
    check (with why); no tail found; skin left torn; hair chains grown or not."""
    parts, level = [], 'INFO'
    chains = [ch for c in summary["characters"] for ch in c["chains"]]
    pieces = {p["id"]: p for c in summary["characters"] for p in c["pieces"]}
    for ch in chains:
        bones = [b for b in ch["bones"] if b != "Tail_End"]
        piece = pieces.get(ch["piece"], {})
        if not ch["rigid"] and bones:
            stepped = piece.get("reason", "").startswith("harm check: ")
            parts.append("added the tail chain %s..%s%s" % (
                bones[0], bones[-1],
                " as the harm check stepped it down (%s)" % _why(piece["reason"]) if stepped
                else ""))
        elif summary["mode"] == "chain" and piece.get("decision") == "tail_rigid":
            # The harm check stepped the chain down: the tail rides the hips whole.
            level = 'WARNING'
            parts.append("the harm check stepped the tail's chain (piece %d) down to rigid on "
                         "the hips: %s" % (ch["piece"], _why(piece.get("reason", ""))))
        else:
            parts.append("put the tail (piece %d) rigid on the hips" % ch["piece"])
    for p in rejected(summary):
        level = 'WARNING'
        parts.append("found a tail (piece %d) but the harm check rejected its chain, left as it "
                     "was: %s" % (p["id"], _why(p["reason"])))
    if not chains and not rejected(summary):
        level = 'WARNING'
        parts.append("found no tail")
    hair = [h for c in summary["characters"] for h in c["hair_chains"]]
    if hair:
        parts.append("added %d hair chain(s) (%s)" %
                     (len(hair), ", ".join("%s: %d bones" % (h["selector"], len(h["bones"]))
                                           for h in hair)))
    for h in (h for c in summary["characters"] for h in c["hair_left"]):
        level = 'WARNING'
        parts.append("hair %s not rebuilt: %s" % (h["selector"], h["reason"]))
    for t in (t for c in summary["characters"] for t in c["left_torn"]):
        level = 'WARNING'
        where = ("%.1f%% torn in '%s'" % (t["torn_percent"], _clip_name(t["clip"]))
                 if t["torn_percent"] is not None and t["clip"] else "torn")
        parts.append("skin left torn as it came (piece %s, %d vertices, %s)" %
                     (t["piece"], t["vertices"], where))
    if summary["failures"]:
        level = 'WARNING'
        parts.append("%d check(s) failed" % len(summary["failures"]))
    return level, "retail " + "; ".join(parts)


def lines(summary):
    """(text, icon) rows for the panel."""
    rows = []
    for i, c in enumerate(summary["characters"]):
        if len(summary["characters"]) > 1:
            rows.append(("Character %d" % (i + 1), 'ARMATURE_DATA'))
        rows += _character_lines(c)
    for w in summary["warnings"]:
        rows.append((w, 'ERROR'))
    for f in summary["failures"]:
        rows.append((f, 'CANCEL'))
    return rows


def _character_lines(c):
    rows = []
    if not c["pieces"]:
        rows.append(("No far pieces found", 'INFO'))
    others = {}
    for p in c["pieces"]:
        if p["decision"] == "tail_rejected":
            rows.append(("Piece %d: tail rejected by the harm check (%s, %d verts): %s" %
                         (p["id"], p["region"], p["vertices"], _why(p["reason"])), 'ERROR'))
        elif p["decision"].startswith("tail_"):
            rows.append(("Piece %d: %s (%s, %d verts)" %
                         (p["id"], p["decision"], p["region"], p["vertices"]), 'CHECKMARK'))
        else:
            others[p["decision"]] = others.get(p["decision"], 0) + 1
    if others:
        rows.append(("Left alone: " + ", ".join("%d %s" % (n, d) for d, n in others.items()),
                     'DOT'))
    for ch in c["chains"]:
        if ch["rigid"]:
            rows.append(("Chain on piece %d: rigid on the hips" % ch["piece"], 'BONE_DATA'))
        else:
            bones = [b for b in ch["bones"] if b != "Tail_End"]
            span = "%s..%s" % (bones[0], bones[-1]) if bones else "no bones"
            rows.append(("Chain on piece %d: %s, length %.3g m" %
                         (ch["piece"], span, ch["length"]), 'BONE_DATA'))
    for h in c["hair_chains"]:
        span = "%s..%s" % (h["bones"][0], h["bones"][-1]) if h["bones"] else "no bones"
        rows.append(("Hair %s: %s, length %.3g m" % (h["selector"], span, h["length"]),
                     'OUTLINER_OB_CURVES'))
    for h in c["hair_left"]:
        rows.append(("Hair %s not rebuilt: %s" % (h["selector"], h["reason"]), 'ERROR'))
    w = c["worst_clip"]
    if w is not None:
        rows.append(("Torn, worst clip %s: %.1f%% -> %.1f%%" %
                     (_clip_name(w["clip"]), w["torn_before"], w["torn_after"]), 'MOD_WAVE'))
        if c["worst_torn_after"] is not None and c["worst_torn_after"] > w["torn_after"]:
            rows.append(("Worst torn after, any clip: %.1f%%" % c["worst_torn_after"], 'ERROR'))
    for t in c["left_torn"]:
        rows.append(("Skin left torn: piece %s, %d verts" % (t["piece"], t["vertices"]),
                     'ERROR'))
    for v in c["verdicts"]:
        # A rejection already has its row (with the verdict as its reason).
        if v != "kept" and not v.endswith(": left as it was"):
            rows.append((v, 'INFO'))
    return rows
