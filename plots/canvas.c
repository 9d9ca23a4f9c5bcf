/* canvas.c: output files and drawing helpers shared by plots/ (plots layer). Surfaces are
 * created by extension (PNG image, SVG in px units, PDF in pt), every cairo status is
 * checked, and the bytes go to a temporary file that is renamed only when all went well. */
#include "plots/canvas-private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cairo-svg.h>
#include <cairo-pdf.h>

int cs_plot_format(const char *path, cs_plot_fmt *fmt, cs_err *err)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (dot && (!slash || dot > slash)) {
        if (!strcasecmp(dot, ".png"))
            return *fmt = CS_PLOT_PNG, 0;
        if (!strcasecmp(dot, ".svg"))
            return *fmt = CS_PLOT_SVG, 0;
        if (!strcasecmp(dot, ".pdf"))
            return *fmt = CS_PLOT_PDF, 0;
    }
    return cs_err_set(err, CS_EINVAL, path ? path : "", "unknown file type '%s' (expected .png, .svg or .pdf)",
                      dot && (!slash || dot > slash) ? dot : "");
}

/* The PDF creation date: SOURCE_DATE_EPOCH when set (reproducible-builds.org), else
 * 2000-01-01, so that two runs write the same bytes. */
static const char *pdf_date(char *buf, size_t n)
{
    const char *e = getenv("SOURCE_DATE_EPOCH");
    char *end;
    long long v = e ? strtoll(e, &end, 10) : 0;
    time_t t;
    struct tm tm;
    if (!e || !*e || *end || v < 0 || v > 253402300799LL)   /* up to 9999-12-31 */
        v = 946684800;                                       /* 2000-01-01T00:00:00Z */
    t = (time_t)v;
    if (!gmtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, n, "2000-01-01T00:00:00Z");
    return buf;
}

int cs__plot_check_size(int w, int h, cs_err *err)
{
    if (w < CS_PLOT_MIN_SIDE || w > CS_PLOT_MAX_SIDE)
        return cs_err_set(err, CS_EINVAL, "--width", "must be in [%d, %d], got %d",
                          CS_PLOT_MIN_SIDE, CS_PLOT_MAX_SIDE, w);
    if (h < CS_PLOT_MIN_SIDE || h > CS_PLOT_MAX_SIDE)
        return cs_err_set(err, CS_EINVAL, "--height", "must be in [%d, %d], got %d",
                          CS_PLOT_MIN_SIDE, CS_PLOT_MAX_SIDE, h);
    return 0;
}

static cairo_status_t canvas_write(void *closure, const unsigned char *data, unsigned int len)
{
    cs__canvas *cv = closure;
    if (cv->fmt == CS_PLOT_SVG) {
        if (cv->svg_len + len > cv->svg_cap) {
            size_t cap = cv->svg_cap ? cv->svg_cap : 65536;
            unsigned char *nb;
            while (cap < cv->svg_len + len)
                cap *= 2;
            if (!(nb = realloc(cv->svg, cap))) {
                cv->write_failed = ENOMEM;
                return CAIRO_STATUS_NO_MEMORY;
            }
            cv->svg = nb;
            cv->svg_cap = cap;
        }
        memcpy(cv->svg + cv->svg_len, data, len);
        cv->svg_len += len;
        return CAIRO_STATUS_SUCCESS;
    }
    if (fwrite(data, 1, len, cv->file.f) != len) {
        cv->write_failed = errno ? errno : EIO;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

static int cairo_fail(cs__canvas *cv, cairo_status_t st, cs_err *err)
{
    const char *where = cv->file.path ? cv->file.path : "";
    if (st == CAIRO_STATUS_NO_MEMORY)
        return cs_err_set(err, CS_ENOMEM, where, "out of memory while drawing");
    if (cv->write_failed)            /* the system's reason, not cairo's "no error" */
        return cs_err_set(err, CS_EIO, where, "cannot write: %s", strerror(cv->write_failed));
    if (st == CAIRO_STATUS_WRITE_ERROR)
        return cs_err_set(err, CS_EIO, where, "cannot write: %s", cairo_status_to_string(st));
    return cs_err_set(err, CS_EIO, where, "drawing failed: %s", cairo_status_to_string(st));
}

int cs__canvas_status(cs__canvas *cv, cs_err *err)
{
    cairo_status_t st = cv->cr ? cairo_status(cv->cr) : CAIRO_STATUS_SUCCESS;
    if (st == CAIRO_STATUS_SUCCESS && cv->surface)
        st = cairo_surface_status(cv->surface);
    return st == CAIRO_STATUS_SUCCESS ? 0 : cairo_fail(cv, st, err);
}

int cs__canvas_open(cs__canvas *cv, const char *path, int w, int h, cs_err *err)
{
    int rc;
    memset(cv, 0, sizeof *cv);
    if ((rc = cs_plot_format(path, &cv->fmt, err)) != 0 || (rc = cs__plot_check_size(w, h, err)) != 0)
        return rc;
    if ((rc = cs_outfile_open(&cv->file, path, err)) != 0)
        return rc;
    cv->w = w;
    cv->h = h;
    switch (cv->fmt) {
    case CS_PLOT_PNG:
        cv->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
        break;
    case CS_PLOT_SVG:
        cv->surface = cairo_svg_surface_create_for_stream(canvas_write, cv, w, h);
        if (cairo_surface_status(cv->surface) == CAIRO_STATUS_SUCCESS)
            cairo_svg_surface_set_document_unit(cv->surface, CAIRO_SVG_UNIT_PX);
        break;
    case CS_PLOT_PDF:
        cv->surface = cairo_pdf_surface_create_for_stream(canvas_write, cv, w, h);
        if (cairo_surface_status(cv->surface) == CAIRO_STATUS_SUCCESS) {
            char date[32];
            cairo_pdf_surface_set_metadata(cv->surface, CAIRO_PDF_METADATA_CREATOR, "collsim");
            /* same input, same bytes: a fixed creation date instead of "now" */
            cairo_pdf_surface_set_metadata(cv->surface, CAIRO_PDF_METADATA_CREATE_DATE,
                                           pdf_date(date, sizeof date));
        }
        break;
    }
    if ((rc = cs__canvas_status(cv, err)) != 0) {
        cs__canvas_abort(cv);
        return rc;
    }
    cv->cr = cairo_create(cv->surface);
    if ((rc = cs__canvas_status(cv, err)) != 0) {
        cs__canvas_abort(cv);
        return rc;
    }
    cairo_set_source_rgb(cv->cr, 1, 1, 1);
    cairo_paint(cv->cr);
    cs__font(cv->cr, 12, 0);
    return 0;
}

void cs__canvas_abort(cs__canvas *cv)
{
    if (!cv)
        return;
    if (cv->cr)
        cairo_destroy(cv->cr);
    if (cv->surface) {
        cairo_surface_finish(cv->surface);
        cairo_surface_destroy(cv->surface);
    }
    cv->cr = NULL;
    cv->surface = NULL;
    free(cv->svg);
    cv->svg = NULL;
    cs_outfile_abort(&cv->file);
}

/* cairo names SVG groups "surface<N>" after a process-wide surface counter, so the same
 * picture drawn twice in one process would differ. Renumber them 1, 2, ... in order of
 * first appearance while writing the held bytes out. */
static int svg_flush_renumbered(cs__canvas *cv)
{
    static const char key[] = "surface";
    const size_t kl = sizeof key - 1;
    unsigned long old_ids[256];
    int n_ids = 0;
    size_t i = 0, start = 0;
    FILE *f = cv->file.f;
    while (i + kl < cv->svg_len) {
        unsigned long v = 0, k;
        size_t j = i + kl;
        int m;
        if (memcmp(cv->svg + i, key, kl) || cv->svg[j] < '0' || cv->svg[j] > '9') {
            i++;
            continue;
        }
        while (j < cv->svg_len && cv->svg[j] >= '0' && cv->svg[j] <= '9')
            v = v * 10 + (unsigned long)(cv->svg[j++] - '0');
        for (m = 0; m < n_ids && old_ids[m] != v; m++)
            ;
        if (m == n_ids) {
            if (n_ids == 256) {   /* more groups than we track: leave the rest as cairo wrote it */
                i = j;
                continue;
            }
            old_ids[n_ids++] = v;
        }
        k = (unsigned long)m + 1;
        fwrite(cv->svg + start, 1, i + kl - start, f);
        fprintf(f, "%lu", k);
        i = start = j;
    }
    fwrite(cv->svg + start, 1, cv->svg_len - start, f);
    return ferror(f) ? -1 : 0;
}

int cs__canvas_close(cs__canvas *cv, cs_err *err)
{
    int rc = cs__canvas_status(cv, err);
    cairo_status_t st = CAIRO_STATUS_SUCCESS;
    if (rc == 0) {
        cairo_destroy(cv->cr);
        cv->cr = NULL;
        if (cv->fmt == CS_PLOT_PNG) {
            cairo_surface_flush(cv->surface);
            st = cairo_surface_write_to_png_stream(cv->surface, canvas_write, cv);
        } else {
            cairo_surface_finish(cv->surface);
        }
        if (st == CAIRO_STATUS_SUCCESS)
            st = cairo_surface_status(cv->surface);
        if (st != CAIRO_STATUS_SUCCESS || cv->write_failed)
            rc = cairo_fail(cv, st, err);
        else if (cv->fmt == CS_PLOT_SVG && svg_flush_renumbered(cv))
            rc = cs_err_set(err, CS_EIO, cv->file.path, "cannot write: %s",
                            strerror(errno ? errno : EIO));
    }
    if (rc != 0) {
        cs__canvas_abort(cv);
        return rc;
    }
    cairo_surface_destroy(cv->surface);
    cv->surface = NULL;
    free(cv->svg);
    cv->svg = NULL;
    return cs_outfile_commit(&cv->file, err);
}

/* Okabe & Ito (2008), "Color Universal Design": blue, vermillion, bluish green, orange,
 * reddish purple, sky blue, black, yellow (last: weakest on white). */
static const unsigned char okabe_ito[8][3] = {
    {0x00, 0x72, 0xB2}, {0xD5, 0x5E, 0x00}, {0x00, 0x9E, 0x73}, {0xE6, 0x9F, 0x00},
    {0xCC, 0x79, 0xA7}, {0x56, 0xB4, 0xE9}, {0x00, 0x00, 0x00}, {0xF0, 0xE4, 0x42},
};

void cs_plot_series_rgb(int i, unsigned char rgb[3])
{
    const unsigned char *c = okabe_ito[((i % 8) + 8) % 8];
    rgb[0] = c[0];
    rgb[1] = c[1];
    rgb[2] = c[2];
}

cs__rgb cs__palette(int i)
{
    unsigned char c[3];
    cs__rgb out;
    cs_plot_series_rgb(i, c);
    out.r = c[0] / 255.0;
    out.g = c[1] / 255.0;
    out.b = c[2] / 255.0;
    return out;
}

/* viridis (van der Walt & Smith, matplotlib) sampled at 10 evenly spaced points. */
static const unsigned char viridis[10][3] = {
    {0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3E, 0x4A, 0x89}, {0x31, 0x68, 0x8E},
    {0x26, 0x82, 0x8E}, {0x1F, 0x9E, 0x89}, {0x35, 0xB7, 0x79}, {0x6D, 0xCD, 0x59},
    {0xB4, 0xDE, 0x2C}, {0xFD, 0xE7, 0x25},
};

cs__rgb cs__viridis(double t)
{
    cs__rgb out;
    double x;
    int i;
    if (!(t > 0))
        t = 0;
    if (t > 1)
        t = 1;
    x = t * 9.0;
    i = (int)floor(x);
    if (i >= 9)
        i = 8;
    x -= i;
    out.r = ((1 - x) * viridis[i][0] + x * viridis[i + 1][0]) / 255.0;
    out.g = ((1 - x) * viridis[i][1] + x * viridis[i + 1][1]) / 255.0;
    out.b = ((1 - x) * viridis[i][2] + x * viridis[i + 1][2]) / 255.0;
    return out;
}

void cs__set_rgb(cairo_t *cr, cs__rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

void cs__set_rgba(cairo_t *cr, cs__rgb c, double a)
{
    cairo_set_source_rgba(cr, c.r, c.g, c.b, a);
}

void cs__font(cairo_t *cr, double size_px, int bold)
{
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size_px);
}

double cs__text_w(cairo_t *cr, const char *s)
{
    cairo_text_extents_t te;
    cairo_text_extents(cr, s, &te);
    return te.x_advance;
}

/* The baseline of text anchored at y: its top (ay <= 0), middle (0 < ay < 1) or baseline. */
static double baseline(const cairo_font_extents_t *fe, double y, double ay)
{
    if (ay <= 0)
        return y + fe->ascent;
    if (ay < 1)
        return y + (fe->ascent - fe->descent) / 2;
    return y;
}

void cs__text(cairo_t *cr, double x, double y, double ax, double ay, const char *s)
{
    cairo_font_extents_t fe;
    double w = cs__text_w(cr, s);
    cairo_font_extents(cr, &fe);
    cairo_move_to(cr, x - ax * w, baseline(&fe, y, ay));
    cairo_show_text(cr, s);
    cairo_new_path(cr);
}

void cs__text_vertical(cairo_t *cr, double x, double y, const char *s)
{
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, -CS__PI / 2);
    cs__text(cr, 0, 0, 0.5, 0.5, s);
    cairo_restore(cr);
}

void cs__text_fit(cairo_t *cr, const char *s, double max_w, char *buf, size_t len)
{
    size_t n = strlen(s), keep;
    snprintf(buf, len, "%s", s);
    if (cs__text_w(cr, buf) <= max_w)
        return;
    /* Cut in the middle, so both ends of "ring on dgx-h100-x2" stay readable. */
    for (keep = n - 1; keep > 0; keep--) {
        size_t head = (keep + 1) / 2, tail = n - (keep - head);
        while (head > 0 && ((unsigned char)s[head] & 0xC0) == 0x80)
            head--;   /* never inside a UTF-8 sequence */
        while (tail < n && ((unsigned char)s[tail] & 0xC0) == 0x80)
            tail++;
        snprintf(buf, len, "%.*s\xe2\x80\xa6%s", (int)head, s, s + tail);
        if (cs__text_w(cr, buf) <= max_w)
            return;
    }
    snprintf(buf, len, "\xe2\x80\xa6");
}

int cs__text_wrap2(cairo_t *cr, const char *s, double max_w, char *l1, char *l2, size_t len)
{
    size_t n = strlen(s), i, best = 0;
    snprintf(l1, len, "%s", s);
    l2[0] = '\0';
    if (cs__text_w(cr, s) <= max_w)
        return 1;
    /* The longest first line that fits, ending before a space. */
    for (i = 1; i < n; i++) {
        if (s[i] != ' ')
            continue;
        snprintf(l1, len, "%.*s", (int)i, s);
        if (cs__text_w(cr, l1) > max_w)
            break;
        best = i;
    }
    if (!best) {
        snprintf(l1, len, "%s", s);
        return 0;
    }
    snprintf(l1, len, "%.*s", (int)best, s);
    while (s[best] == ' ')
        best++;
    snprintf(l2, len, "%s", s + best);
    if (cs__text_w(cr, l2) > max_w) {
        snprintf(l1, len, "%s", s);
        l2[0] = '\0';
        return 0;
    }
    return 2;
}

void cs__texts_add(cs_plot_texts *tx, cairo_t *cr, double x, double y, double ax, double ay,
                   const char *s, int owner)
{
    cairo_font_extents_t fe;
    cs_plot_text *t;
    double w, by;
    if (!tx || tx->n >= CS_PLOT_MAX_TEXTS)
        return;
    t = &tx->items[tx->n++];
    w = cs__text_w(cr, s);
    cairo_font_extents(cr, &fe);
    by = baseline(&fe, y, ay);
    t->box.x = x - ax * w;
    t->box.y = by - fe.ascent;
    t->box.w = w;
    t->box.h = fe.ascent + fe.descent;
    t->owner = owner;
    snprintf(t->text, sizeof t->text, "%s", s);
}

void cs__text_rec(cs_plot_texts *tx, cairo_t *cr, double x, double y, double ax, double ay,
                  const char *s, int owner)
{
    cs__text(cr, x, y, ax, ay, s);
    cs__texts_add(tx, cr, x, y, ax, ay, s, owner);
}

double cs__extent_w(void *cr, const char *label)
{
    return cs__text_w(cr, label);
}

double cs__extent_h(void *cr, const char *label)
{
    cairo_font_extents_t fe;
    (void)label;
    cairo_font_extents(cr, &fe);
    return fe.ascent + fe.descent;
}

double cs__crisp(double v)
{
    return floor(v) + 0.5;
}
