/* timeline.h: recording what a simulation did, and drawing it (plots layer). A cs_timeline
 * is fed by the executor's observer (sim/exec.h) and keeps one record per operation with
 * its ready, start, done and reduce-done times. From it come per-rank timeline pictures
 * (cs_plot_timeline) and Chrome/Perfetto trace-event JSON (cs_trace_write). */
#ifndef CS_TIMELINE_H
#define CS_TIMELINE_H

#include <stdint.h>
#include "sim/err.h"
#include "sim/time.h"
#include "sim/topo.h"
#include "sim/sched.h"
#include "sim/exec.h"
#include "plots/plot.h"

/* One recorded operation (a transfer or a compute task). Times in ps, -1 if not seen. */
typedef struct cs_tl_op {
    int32_t src, dst;        /* topology ranks; equal for a compute task. An auxiliary
                                endpoint (a switch reducing in the network) counts as rank
                                n_ranks + its index in the schedule, so it gets a lane */
    int32_t src_node, dst_node; /* topology nodes */
    int32_t step;            /* algorithm step, -1 if none */
    int32_t chunk;           /* first data chunk id it carries, -1 if none */
    int32_t job;             /* job index (order the jobs were added), 0-based */
    uint32_t xfer;           /* operation index in its job's schedule */
    uint16_t pipe;           /* pipeline chunk within its step */
    uint8_t op;              /* cs_op: copy, reduce or compute */
    uint8_t channel;         /* channel (parallel ring/tree) */
    uint64_t bytes;          /* bytes moved, 0 for compute */
    cs_time ready_ps;        /* dependencies done, posted to the network */
    cs_time start_ps;        /* holds its ports / starts crossing the route */
    cs_time done_ps;         /* last byte at dst (compute: end of the task) */
    cs_time reduce_done_ps;  /* dst finished reducing it (reduces with gamma > 0), else -1 */
} cs_tl_op;

/* What colours the bars of a timeline. */
typedef enum cs_tl_color {
    CS_TL_COLOR_STEP,        /* algorithm step (default): makes "2(p-1) steps" visible */
    CS_TL_COLOR_CHUNK        /* data chunk: follows each piece of the buffer around */
} cs_tl_color;

typedef struct cs_timeline cs_timeline;

/* A recorder for a simulation on topo (borrowed; it must outlive the timeline). Returns 0
 * or CS_ENOMEM. */
int cs_timeline_new(cs_timeline **out, const cs_topo *topo);
void cs_timeline_free(cs_timeline *tl);

/* The observer to install: cs_sim_set_observer(sim, cs_timeline_observer, tl). It never
 * fails the run; an allocation failure is kept and reported by cs_timeline_check. */
void cs_timeline_observer(void *ctx, const cs_obs_event *ev);

/* 0 if everything was recorded, else the error met while recording (CS_ENOMEM). */
int cs_timeline_check(const cs_timeline *tl, cs_err *err);

/* Extra executor costs (NCCL mode, sim/exec.h) for cs_timeline_run; copied. NULL clears. */
void cs_timeline_set_costs(cs_timeline *tl, const cs_sim_costs *costs);

/* Convenience: run schedule s alone on ranks 0..n-1 of the timeline's topology with the
 * recorder installed. t_ps (may be NULL) gets the finish time. Returns 0 or the run's
 * error code. */
int cs_timeline_run(cs_timeline *tl, const cs_sched *s, cs_time *t_ps, cs_err *err);

/* The recorded operations, in the order they became ready (valid until the next record
 * or free), and the topology. */
const cs_tl_op *cs_timeline_ops(const cs_timeline *tl, int *n);
const cs_topo *cs_timeline_topo(const cs_timeline *tl);
/* Latest done or reduce-done time, ps. */
cs_time cs_timeline_end(const cs_timeline *tl);

/* Drawing options: title (copied; NULL = none), bar colouring, and the number of busiest
 * links drawn as utilisation lanes under the ranks (default 4; 0 = none; ignored on the
 * alpha_beta model, which has no links). Return 0 or CS_ENOMEM. */
int cs_timeline_set_title(cs_timeline *tl, const char *title);
void cs_timeline_set_color(cs_timeline *tl, cs_tl_color by);
void cs_timeline_set_link_lanes(cs_timeline *tl, int n);

/* "step" / "chunk" lookup for --color flags (CS_ENOENT listing them). */
int cs_tl_color_lookup(const char *name, cs_tl_color *out, cs_err *err);

/* Draw the timeline: one lane per rank with its sends, receives and reductions as bars
 * (colour by step or chunk), a time axis in microseconds, and utilisation lanes for the
 * busiest links. Format by extension; written atomically. Returns 0, or CS_EINVAL (nothing
 * recorded, bad size), CS_EIO, CS_ENOMEM. */
int cs_plot_timeline(const cs_timeline *tl, const char *path, int w, int h, cs_err *err);
/* The same, recording every line of text of the header and the link panel (title, colour
 * key, the caption naming the rows, the links' heading) with its box into texts (may be
 * NULL), so a test can check that none overlaps another. */
int cs_plot_timeline_layout(const cs_timeline *tl, const char *path, int w, int h,
                            cs_plot_texts *texts, cs_err *err);

/* Per-directed-link utilisation estimated from the record: each transfer flows at
 * bytes / (done - start - route latency) over its route after the latency. Fills the
 * dlink ids of the n busiest (most busy time at full rate, bytes / bandwidth; ties to the
 * lower id) into ids and returns how many (<= n), 0 on the alpha_beta model; negative code
 * on failure. */
int cs_timeline_busiest_links(const cs_timeline *tl, int n, int32_t *ids, cs_err *err);

/* Write Chrome/Perfetto trace-event JSON: per rank a process with "send" and "recv"
 * tracks (and "reduce"/"compute" when used; overlapping slices spill onto extra tracks
 * "send 2", ...), per used directed link a track in the "links" process; every transfer a
 * slice ("X", ts/dur in microseconds) on its sender's send track, its receiver's recv
 * track and each link of its route, with bytes, chunk, step and peer in args, and a flow
 * arrow ("s" -> "f") from the send slice to the recv slice. Written atomically.
 * Returns 0, or CS_EINVAL (nothing recorded), CS_EIO, CS_ENOMEM. */
int cs_trace_write(const cs_timeline *tl, const char *path, cs_err *err);

/* `--trace FILE`: run s alone on t with the executor costs (NULL = none) and the recorder,
 * and write the Perfetto trace JSON atomically to path. */
int cs_trace_schedule(const cs_topo *t, const cs_sched *s, const cs_sim_costs *costs,
                      const char *path, cs_err *err);

#endif
