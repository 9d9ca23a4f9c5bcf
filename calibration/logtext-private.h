/* logtext-private.h: what the text readers share (calibration layer, private to
 * logparse_text.c, the line scanning, and logparse_rows.c, the table headers and rows):
 * the reader's state and the column layout of a table. */
#ifndef CS_LOGTEXT_PRIVATE_H
#define CS_LOGTEXT_PRIVATE_H

#include "calibration/logparse-private.h"

/* Column positions of a table (-1 = absent). Group 0 is out-of-place, group 1 in-place. */
typedef struct cs__log_layout {
    int ncols;               /* columns a row must have */
    int size, count, type, redop, root;
    int time[2], algbw[2], busbw[2], wrong[2];
} cs__log_layout;

/* Reader state shared by both text formats. */
typedef struct cs__log_reader {
    cs_log *log;
    const cs_log_opts *opts;
    cs_err *err;
    cs__log_meta meta;       /* what the current run said so far */
    cs_log_table *cur;       /* table being filled, NULL between tables */
    int rows_since_reset;    /* rows read since meta was last reset */
    cs__log_layout lay;              /* columns from the last header */
    int has_layout;          /* a header was read */
    uint64_t last_size;      /* size of the previous row of cur */
    int line;                /* current line number, 1-based */
    int last_line;           /* number of the last line of the buffer */
    int is_hccl;             /* hccl_test output */
} cs__log_reader;

/* Close the table being filled: infer its collective, ranks and nodes (logparse_rows.c). */
void cs__logtext_close_table(cs__log_reader *r);

/* Tables (logparse_rows.c). A '#' line of nccl-tests naming columns ("#  size  count  type
 * ... time  algbw  busbw #wrong ..."): 1 if it was a header (the layout is then taken). */
int cs__logtext_header(cs__log_reader *r, char *body);
/* An hccl_test header line ("data_size(Bytes): | aveg_time(us): | ..."). */
void cs__logtext_hccl_header(cs__log_reader *r, char *s);
/* A row of nccl-tests / hccl_test: 0 or a negative code with "name:line: why". */
int cs__logtext_nccl_row(cs__log_reader *r, char *s);
int cs__logtext_hccl_row(cs__log_reader *r, char *s);

#endif
