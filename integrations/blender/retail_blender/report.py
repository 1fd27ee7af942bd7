# The report's summary (docs/report-schema.md, retail.report/1) as plain data for the panel and
# for scripts: pieces with their decision, chains, the tail's torn share before -> after in the
# worst clip, warnings. summarize() takes the parsed report; lines() renders the summary.
SCHEMA = "retail.report/1"


def _clip_name(name):
    return name.rsplit("|", 1)[-1]


def summarize(report):
    if report.get("schema") != SCHEMA:
        raise ValueError("not a %s report: %r" % (SCHEMA, report.get("schema")))
    characters = []
    for c in report.get("characters", []):
        pieces = [{"id": p["id"], "decision": p["decision"], "region": p.get("region", ""),
                   "vertices": p.get("vertices", 0), "reason": p.get("reason", "")}
                  for p in c.get("pieces", [])]
        chains = [{"piece": ch["piece"], "bones": list(ch.get("bones", [])), "K": ch.get("K", 0),
                   "rigid": bool(ch.get("rigid", False)), "length": ch.get("L", 0.0),
                   "distance_before": ch.get("weighted_bone_distance", {}).get("before"),
                   "distance_after": ch.get("weighted_bone_distance", {}).get("after")}
                  for ch in c.get("chains", [])]
        worst = None
        for clip in c.get("stretch", {}).get("clips", []):
            before = clip["original"]["torn_percent"]
            after = clip["result"]["torn_percent"]
            # The worst clip is the one whose tail tore most on the input rig; ties: the one
            # torn more after, then the first clip.
            if worst is None or (before, after) > (worst["torn_before"], worst["torn_after"]):
                worst = {"clip": clip["name"], "torn_before": before, "torn_after": after}
        worst_after = max((clip["result"]["torn_percent"]
                           for clip in c.get("stretch", {}).get("clips", [])), default=None)
        characters.append({"height": c.get("height"), "pieces": pieces, "chains": chains,
                           "worst_clip": worst, "worst_torn_after": worst_after,
                           "verdicts": [h.get("verdict", "") for h in c.get("harm_check", [])]})
    return {"mode": report.get("mode", ""), "characters": characters,
            "warnings": list(report.get("warnings", [])),
            "failures": list(report.get("failures", []))}


def tail_found(summary):
    """True when some character got a tail chain (or a rigid tail in mode rigid)."""
    return any(ch["chains"] for ch in summary["characters"])


def lines(summary):
    """(text, icon) rows for the panel."""
    rows = []
    for i, c in enumerate(summary["characters"]):
        if len(summary["characters"]) > 1:
            rows.append(("Character %d" % (i + 1), 'ARMATURE_DATA'))
        if not c["pieces"]:
            rows.append(("No far pieces found", 'INFO'))
        others = {}
        for p in c["pieces"]:
            if p["decision"].startswith("tail_"):
                icon = 'ERROR' if p["decision"] == "tail_rejected" else 'CHECKMARK'
                rows.append(("Piece %d: %s (%s, %d verts)" %
                             (p["id"], p["decision"], p["region"], p["vertices"]), icon))
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
                rows.append(("Chain on piece %d: %s, length %.3g" %
                             (ch["piece"], span, ch["length"]), 'BONE_DATA'))
        w = c["worst_clip"]
        if w is not None:
            rows.append(("Torn, worst clip %s: %.1f%% -> %.1f%%" %
                         (_clip_name(w["clip"]), w["torn_before"], w["torn_after"]), 'MOD_WAVE'))
            if c["worst_torn_after"] is not None and c["worst_torn_after"] > w["torn_after"]:
                rows.append(("Worst torn after, any clip: %.1f%%" % c["worst_torn_after"],
                             'ERROR'))
        for v in c["verdicts"]:
            if v != "kept":
                rows.append((v, 'INFO'))
    for w in summary["warnings"]:
        rows.append((w, 'ERROR'))
    for f in summary["failures"]:
        rows.append((f, 'CANCEL'))
    return rows
