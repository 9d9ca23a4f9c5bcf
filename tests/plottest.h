/* plottest.h: helpers shared by the plots tests (test_plots.c, test_timeline.c): a
 * temporary directory, file checks for PNG (signature, IHDR size), SVG (root size in px)
 * and PDF (header, MediaBox), byte equality, and counting pixels of a colour. */
#ifndef CS_PLOTTEST_H
#define CS_PLOTTEST_H

#include <cairo.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plots/plot.h"

static char cs__plottest_tmpdir[256];

static inline int cs__plottest_cleanup(void);

static inline void cs__plottest_atexit(void)
{
    cs__plottest_cleanup();
}

/* A name inside a temporary directory made on first use and removed at exit. */
static inline const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    if (!cs__plottest_tmpdir[0]) {
        snprintf(cs__plottest_tmpdir, sizeof cs__plottest_tmpdir, "/tmp/cs-test-plots-XXXXXX");
        if (!mkdtemp(cs__plottest_tmpdir))
            snprintf(cs__plottest_tmpdir, sizeof cs__plottest_tmpdir, "/tmp");
        else
            atexit(cs__plottest_atexit);
    }
    snprintf(buf[k], sizeof buf[k], "%s/%s", cs__plottest_tmpdir, name);
    return buf[k];
}

/* Files in the temporary directory whose names start with prefix. */
static inline int count_files(const char *prefix)
{
    DIR *d = opendir(cs__plottest_tmpdir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix)))
            n++;
    closedir(d);
    return n;
}

static inline char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n = 0;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    if (len)
        *len = n;
    return buf;
}

/* PNG signature and IHDR size. */
static inline int png_size(const char *path, int *w, int *h)
{
    long n = 0;
    unsigned char *b = (unsigned char *)slurp(path, &n);
    int ok = b && n > 24 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8) && !memcmp(b + 12, "IHDR", 4);
    if (ok) {
        *w = (b[16] << 24) | (b[17] << 16) | (b[18] << 8) | b[19];
        *h = (b[20] << 24) | (b[21] << 16) | (b[22] << 8) | b[23];
    }
    free(b);
    return ok;
}

/* Root width/height of an SVG written in px. */
static inline int svg_size(const char *path, int *w, int *h)
{
    char *b = slurp(path, NULL), *svg;
    int ok = b && (svg = strstr(b, "<svg")) &&
             sscanf(strstr(svg, "width=\""), "width=\"%dpx\"", w) == 1 &&
             sscanf(strstr(svg, "height=\""), "height=\"%dpx\"", h) == 1;
    free(b);
    return ok;
}

static inline int pdf_ok(const char *path, int w, int h)
{
    long n = 0, i;
    char *b = slurp(path, &n), want[64];
    int ok = 0;
    size_t k;
    snprintf(want, sizeof want, "/MediaBox [ 0 0 %d %d ]", w, h);
    k = strlen(want);
    for (i = 0; b && i + (long)k <= n && !ok; i++)   /* binary streams hold NULs */
        ok = !memcmp(b + i, want, k);
    ok = ok && !strncmp(b, "%PDF-", 5);
    free(b);
    return ok;
}

static inline int same_bytes(const char *a, const char *b)
{
    long na = 0, nb = 0;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na == nb && !memcmp(x, y, (size_t)na);
    free(x);
    free(y);
    return same;
}

/* Opaque pixels of exactly rgb inside rect r of a PNG. */
static inline long count_rgb(const char *png, const cs_plot_rect *r, const unsigned char rgb[3])
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(png);
    long n = 0;
    int x, y, stride;
    unsigned char *data;
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return -1;
    }
    cairo_surface_flush(s);
    data = cairo_image_surface_get_data(s);
    stride = cairo_image_surface_get_stride(s);
    for (y = (int)r->y + 1; y < (int)(r->y + r->h) - 1; y++)
        for (x = (int)r->x + 1; x < (int)(r->x + r->w) - 1; x++) {
            uint32_t px = *(uint32_t *)(data + y * stride + 4 * x);
            if ((px >> 24) == 0xff && ((px >> 16) & 0xff) == rgb[0] && ((px >> 8) & 0xff) == rgb[1] &&
                (px & 0xff) == rgb[2])
                n++;
        }
    cairo_surface_destroy(s);
    return n;
}

/* Remove the temporary directory and its files. */
static inline int cs__plottest_cleanup(void)
{
    DIR *d;
    struct dirent *e;
    char p[1024];
    if (!cs__plottest_tmpdir[0] || !strcmp(cs__plottest_tmpdir, "/tmp") || !(d = opendir(cs__plottest_tmpdir)))
        return 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", cs__plottest_tmpdir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(cs__plottest_tmpdir);
    cs__plottest_tmpdir[0] = '\0';
    return 0;
}

#endif
