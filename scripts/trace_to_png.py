#!/usr/bin/env python3
"""Render a dtensor-run trace (Chrome trace JSON) as a timeline PNG.

Usage:
  scripts/trace_to_png.py TRACE.json OUT.png [--title T] [--width IN] [--dpi N]

Input: the file written by `dtensor-run ... --trace TRACE.json` (runtime
libdtrt, `dtrt_trace_write`): `{"traceEvents": [...]}` (a bare list is also
accepted) with complete events `ph: "X"` (`ts`/`dur` in microseconds),
`pid` = rank, `tid` 0 = compute, `tid` 1 = communication, and metadata
events (`ph: "M"`, `process_name` / `thread_name`) that name them.
Begin/end pairs (`ph: "B"` / `"E"`) are accepted as well.

Output: one horizontal lane per rank, split into sub-lanes (compute on top,
communication below, any other thread under them), each kind in its own
colour, with a legend, a time axis in milliseconds from the earliest span,
and per-rank totals (busy time per kind and the number of spans) at the right.
Spans are labelled with their name and duration when the label fits.
Communication spans are often much shorter than the compute spans around
them; any span narrower than --min-px pixels is drawn --min-px wide so that
it stays visible (the footer says so when that happened).  Nested spans on
one sub-lane (e.g. a region inside the entry function) are drawn thinner on
top of their parent.

Needs matplotlib (scripts/setup.sh installs it in its optional section).
"""

import argparse
import json
import sys
from collections import defaultdict

COLOURS = {0: "#4C72B0", 1: "#DD8452"}  # compute blue, communication orange
OTHER_COLOURS = ["#55A868", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]
DEFAULT_THREAD_NAMES = {0: "compute", 1: "communication"}


def load_events(path):
    with open(path) as f:
        data = json.load(f)
    if isinstance(data, dict):
        events = data.get("traceEvents", [])
    elif isinstance(data, list):
        events = data
    else:
        raise ValueError("not a Chrome trace: top level is neither an object nor a list")
    return events


def collect(events):
    """Returns (spans, process_names, thread_names).

    spans: list of dicts with pid, tid, name, ts, dur, args (µs)."""
    spans = []
    pnames, tnames = {}, {}
    open_stacks = defaultdict(list)  # (pid, tid) -> stack of B events
    for e in events:
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        pid = e.get("pid", 0)
        tid = e.get("tid", 0)
        if ph == "M":
            name = (e.get("args") or {}).get("name")
            if e.get("name") == "process_name" and name is not None:
                pnames[pid] = str(name)
            elif e.get("name") == "thread_name" and name is not None:
                tnames[(pid, tid)] = str(name)
        elif ph == "X":
            try:
                ts, dur = float(e["ts"]), float(e.get("dur", 0.0))
            except (KeyError, TypeError, ValueError):
                continue
            spans.append(dict(pid=pid, tid=tid, name=str(e.get("name", "?")), ts=ts,
                              dur=max(dur, 0.0), args=e.get("args") or {}))
        elif ph == "B":
            open_stacks[(pid, tid)].append(e)
        elif ph == "E":
            stack = open_stacks[(pid, tid)]
            if stack:
                b = stack.pop()
                ts = float(b["ts"])
                spans.append(dict(pid=pid, tid=tid, name=str(b.get("name", "?")), ts=ts,
                                  dur=max(float(e["ts"]) - ts, 0.0), args=b.get("args") or {}))
    return spans, pnames, tnames


def assign_depths(spans):
    """Nesting depth of each span within its (pid, tid) sub-lane."""
    by_lane = defaultdict(list)
    for s in spans:
        by_lane[(s["pid"], s["tid"])].append(s)
    for lane in by_lane.values():
        lane.sort(key=lambda s: (s["ts"], -s["dur"]))
        stack = []  # end times of the enclosing spans
        for s in lane:
            while stack and s["ts"] >= stack[-1] - 1e-9:
                stack.pop()
            s["depth"] = len(stack)
            stack.append(s["ts"] + s["dur"])


def busy_time(intervals):
    """Length of the union of [start, end) intervals."""
    total, cur_s, cur_e = 0.0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def lighten(hex_colour, amount):
    """Mixes a #RRGGBB colour with white (amount 0..1)."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    mix = [round(c + (255 - c) * amount) for c in (r, g, b)]
    return "#" + "".join(f"{c:02x}" for c in mix)


def fmt_ms(ms):
    if ms >= 100:
        return f"{ms:.0f} ms"
    if ms >= 1:
        return f"{ms:.1f} ms"
    return f"{ms * 1000:.0f} µs"


def fmt_bytes(n):
    try:
        n = float(n)
    except (TypeError, ValueError):
        return None
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", help="Chrome trace JSON written by dtensor-run --trace")
    ap.add_argument("output", help="PNG to write")
    ap.add_argument("--title", default=None, help="figure title (default: the trace file name)")
    ap.add_argument("--width", type=float, default=14.0, help="figure width in inches (default 14)")
    ap.add_argument("--dpi", type=int, default=120, help="resolution (default 120)")
    ap.add_argument("--min-px", type=float, default=2.0,
                    help="draw spans at least this many pixels wide (default 2)")
    args = ap.parse_args(argv)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        print("trace_to_png.py: matplotlib is not installed "
              "(python3 -m pip install matplotlib, or scripts/setup.sh)", file=sys.stderr)
        return 2

    try:
        events = load_events(args.trace)
    except (OSError, ValueError) as e:
        print(f"trace_to_png.py: cannot read {args.trace}: {e}", file=sys.stderr)
        return 1
    spans, pnames, tnames = collect(events)
    if not spans:
        print(f"trace_to_png.py: {args.trace} has no spans (ph X or B/E)", file=sys.stderr)
        return 1
    assign_depths(spans)

    t0 = min(s["ts"] for s in spans)
    t1 = max(s["ts"] + s["dur"] for s in spans)
    extent_ms = max((t1 - t0) / 1000.0, 1e-3)

    pids = sorted({s["pid"] for s in spans} | set(pnames))
    pids = [p for p in pids if any(s["pid"] == p for s in spans)]
    tids = sorted({s["tid"] for s in spans} | {0, 1})
    tid_colour = {}
    extra = 0
    for t in tids:
        if t in COLOURS:
            tid_colour[t] = COLOURS[t]
        else:
            tid_colour[t] = OTHER_COLOURS[extra % len(OTHER_COLOURS)]
            extra += 1

    def thread_name(tid):
        for (p, t), n in tnames.items():
            if t == tid:
                return "communication" if n == "comm" else n
        return DEFAULT_THREAD_NAMES.get(tid, f"thread {tid}")

    # Layout: each rank takes len(tids) sub-lanes of height 1 plus a gap.
    sub_h, gap = 1.0, 0.6
    lane_h = len(tids) * sub_h + gap
    n = len(pids)
    height_in = max(2.8, 1.2 + n * (0.45 * len(tids) + 0.25))
    fig, ax = plt.subplots(figsize=(args.width, height_in), dpi=args.dpi)

    # 1. Everything that decides the layout: lanes, tick labels, per-rank
    #    totals at the right, legend, title.
    yticks, ylabels = [], []
    lane_y = {}  # (pid, tid) -> bottom of the sub-lane
    for i, pid in enumerate(pids):
        base = (n - 1 - i) * lane_h  # rank 0 at the top
        for j, tid in enumerate(tids):
            y = base + (len(tids) - 1 - j) * sub_h  # first tid on top
            lane_y[(pid, tid)] = y
            yticks.append(y + sub_h / 2)
            ylabels.append(f"{pnames.get(pid, f'rank {pid}')} · {thread_name(tid)}")
        parts = []
        for tid in tids:
            lane = [s for s in spans if s["pid"] == pid and s["tid"] == tid]
            if not lane:
                parts.append(f"{thread_name(tid)}: none")
                continue
            busy = busy_time([(s["ts"], s["ts"] + s["dur"]) for s in lane]) / 1000.0
            parts.append(f"{thread_name(tid)} {fmt_ms(busy)} ({len(lane)})")
        ax.text(1.005, (base + len(tids) * sub_h / 2 + gap / 2) / (n * lane_h), "\n".join(parts),
                transform=ax.transAxes, ha="left", va="center", fontsize=7.5, color="#333333")
        if i:
            ax.axhline(base + len(tids) * sub_h + gap / 2, color="#BBBBBB", linewidth=0.6)
    ax.text(1.005, 1.0, "busy time (spans)", transform=ax.transAxes, ha="left", va="bottom",
            fontsize=7.5, weight="bold", color="#333333")
    ax.set_xlim(-0.02 * extent_ms, extent_ms * 1.02)
    ax.set_ylim(-gap / 2, n * lane_h - gap / 2)
    ax.set_yticks(yticks)
    ax.set_yticklabels(ylabels, fontsize=8)
    ax.set_xlabel("time since the first span (ms)")
    ax.grid(axis="x", color="#DDDDDD", linewidth=0.6)
    ax.set_axisbelow(True)
    handles = [Patch(facecolor=tid_colour[t], edgecolor="black", linewidth=0.4,
                     label=thread_name(t)) for t in tids]
    ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.0),
              ncol=len(handles), fontsize=8, frameon=False, borderaxespad=0.2,
              handlelength=1.5)
    title = args.title if args.title is not None else args.trace
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.03, 1, 1))

    # 2. The spans, now that the axes have their final size: milliseconds per
    #    pixel for the minimum width, and measured label widths.
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ms_per_px = (extent_ms * 1.04) / max(ax.get_window_extent().width, 1.0)
    min_w = args.min_px * ms_per_px
    widened = 0
    outside = {}  # (pid, tid) -> pixel x-ranges of the labels under spans
    for (pid, tid), y in lane_y.items():
        lane = sorted((s for s in spans if s["pid"] == pid and s["tid"] == tid),
                      key=lambda s: (s["depth"], s["ts"]))
        for s in lane:
            x = (s["ts"] - t0) / 1000.0
            w = s["dur"] / 1000.0
            draw_w = w
            if w < min_w:
                draw_w = min_w
                widened += 1
            depth = s["depth"]
            # Nested spans: thinner, lighter, drawn above their parent.
            shrink = min(0.15 * depth, 0.3)
            h = sub_h * (0.8 - 2 * shrink)
            colour = tid_colour[tid] if depth == 0 else lighten(tid_colour[tid], 0.35 * min(depth, 2))
            ax.add_patch(plt.Rectangle((x, y + sub_h * (0.1 + shrink)), draw_w, h,
                                       facecolor=colour, edgecolor="black", linewidth=0.4,
                                       zorder=2 + 2 * depth))
            label = f"{s['name']} {fmt_ms(w)}"
            if tid == 1:
                b = fmt_bytes(s["args"].get("bytes")) if isinstance(s["args"], dict) else None
                if b:
                    label = f"{s['name']} {b}"
            # A span with nested spans gets its label in the room before its
            # first child; others are centred. Labels that do not fit are dropped.
            kids = [c for c in lane if c["depth"] == depth + 1 and
                    s["ts"] <= c["ts"] <= s["ts"] + s["dur"]]
            room = draw_w
            if kids:
                room = (min(c["ts"] for c in kids) - s["ts"]) / 1000.0
            if room / ms_per_px >= 20:
                t = ax.text(x + room / 2, y + sub_h / 2, label, ha="center", va="center",
                            fontsize=8, color="white" if depth == 0 else "black", clip_on=True,
                            zorder=3 + 2 * depth)
                if t.get_window_extent(renderer).width + 6 <= room / ms_per_px:
                    continue
                t.remove()
            # Too narrow for its label: on the bottom sub-lane of a rank, put
            # a small label under the span, in the gap between ranks, unless
            # it would overlap one already placed there.
            if depth == 0 and tid == tids[-1]:
                placed = outside.setdefault((pid, tid), [])
                ax_bb = ax.get_window_extent()
                short = label.split(" ", 1)[1] if " " in label else label
                for text in dict.fromkeys((label, short)):
                    t = ax.text(x + draw_w / 2, y + sub_h * 0.08, text, ha="center", va="top",
                                fontsize=6.5, color="#333333", clip_on=True, zorder=5)
                    bb = t.get_window_extent(renderer)
                    if bb.x1 > ax_bb.x1:  # keep it inside: flush right with the span
                        t.set_ha("right")
                        t.set_x(x + draw_w)
                    elif bb.x0 < ax_bb.x0:
                        t.set_ha("left")
                        t.set_x(x)
                    bb = t.get_window_extent(renderer)
                    if (bb.x0 >= ax_bb.x0 and bb.x1 <= ax_bb.x1 and
                            not any(bb.x0 < q1 + 4 and q0 < bb.x1 + 4 for q0, q1 in placed)):
                        placed.append((bb.x0, bb.x1))
                        break
                    t.remove()

    n_x = len(spans)
    foot = f"{len(pids)} ranks, {n_x} spans, {fmt_ms(extent_ms)} shown"
    # Say so when compute spans enclose communication spans (the runtime's
    # compute span is the whole entry function, collectives run inside it).
    comp = [s for s in spans if s["tid"] == 0]
    nested_comm = any(c["pid"] == m["pid"] and c["ts"] <= m["ts"] and
                      m["ts"] + m["dur"] <= c["ts"] + c["dur"]
                      for m in spans if m["tid"] == 1 for c in comp)
    if nested_comm:
        foot += "; compute spans enclose the communication that runs inside them"
    if widened:
        foot += f"; {widened} short span{'s' if widened > 1 else ''} drawn {args.min_px:g} px wide to stay visible"
    fig.text(0.01, 0.005, foot, fontsize=7, color="#555555", ha="left", va="bottom")
    try:
        fig.savefig(args.output)
    except OSError as e:
        print(f"trace_to_png.py: cannot write {args.output}: {e}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}: {len(pids)} ranks, {n_x} spans, {extent_ms:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
