/* cmd_list.c: `collsim list algorithms|collectives|topologies` (cli layer). Prints names and
 * one-line summaries straight from the registries (algorithms, collectives, topology kinds
 * and the embedded presets), so whatever is registered shows up. */
#include "cli/cli.h"
#include "sim/sched.h"
#include "algorithms/coll.h"
#include "topologies/topology.h"
#include "scenarios/plan.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* "allreduce, allgather" for the collectives in a mask. */
static void coll_list(uint32_t mask, char *buf, size_t n)
{
    int c;
    buf[0] = '\0';
    for (c = 0; c < CS_COLL_COUNT; c++)
        if ((mask >> c) & 1u) {
            if (buf[0])
                strncat(buf, ", ", n - strlen(buf) - 1);
            strncat(buf, cs_coll_name((cs_coll)c), n - strlen(buf) - 1);
        }
}

static void list_algorithms(void)
{
    int i, n;
    const cs_algo *const *all = cs_algo_all(&n);
    char colls[256];
    printf("# algorithms (--algo NAME, or auto: the fastest for the request)\n");
    printf("%-22s %-42s %s\n", "# name", "collectives", "summary");
    for (i = 0; i < n; i++) {
        coll_list(all[i]->colls, colls, sizeof colls);
        printf("%-22s %-42s %s\n", all[i]->name, colls, all[i]->summary);
    }
}

static void list_collectives(void)
{
    int c, i, n;
    const cs_algo *const *all = cs_algo_all(&n);
    printf("# collectives (nccl-tests names; busbw = algbw x factor)\n");
    printf("%-14s %-10s %s\n", "# name", "busbw", "summary; algorithms");
    for (c = 0; c < CS_COLL_COUNT; c++) {
        char algos[512] = "";
        const char *factor;
        switch (c) {
        case CS_COLL_ALLREDUCE: factor = "2(n-1)/n"; break;
        case CS_COLL_BROADCAST: case CS_COLL_REDUCE: case CS_COLL_SENDRECV:
        case CS_COLL_BARRIER: factor = "1"; break;
        default: factor = "(n-1)/n"; break;
        }
        for (i = 0; i < n; i++) {
            int j, seen = 0;
            if (!cs_algo_has(all[i], (cs_coll)c))
                continue;
            for (j = 0; j < i; j++)
                if (cs_algo_has(all[j], (cs_coll)c) && !strcmp(all[j]->name, all[i]->name))
                    seen = 1;
            if (seen)
                continue;
            if (algos[0])
                strncat(algos, ", ", sizeof algos - strlen(algos) - 1);
            strncat(algos, all[i]->name, sizeof algos - strlen(algos) - 1);
        }
        printf("%-14s %-10s %s; %s\n", cs_coll_name((cs_coll)c), factor,
               cs_coll_summary((cs_coll)c), algos);
    }
}

/* The first sentence of a preset's "description", whole: the preset's one-line summary. */
static void preset_line(const cs_preset *pr, char *buf, size_t n)
{
    json_t *root = json_loads(pr->json, 0, NULL);
    const char *d = root ? json_string_value(json_object_get(root, "description")) : NULL;
    size_t len;
    buf[0] = '\0';
    if (d) {
        const char *dot = strstr(d, ". ");
        while (dot && dot - d >= 3 && (!strncmp(dot - 3, "e.g", 3) || !strncmp(dot - 3, "i.e", 3)))
            dot = strstr(dot + 2, ". ");      /* "e.g. " does not end the sentence */
        len = dot ? (size_t)(dot - d) : strlen(d);
        if (len > n - 1)
            len = n - 1;
        memcpy(buf, d, len);
        buf[len] = '\0';
    }
    json_decref(root);
}

static void list_topologies(void)
{
    int i, n;
    const cs_topo_kind *const *kinds;
    const cs_preset *pr;
    char line[512];
    printf("# topology presets (--topo NAME; default %s)\n", CS_DEFAULT_PRESET);
    printf("%-22s %-9s %-6s %s\n", "# name", "kind", "ranks", "description");
    pr = cs_preset_all(&n);
    for (i = 0; i < n; i++) {
        cs_topo *t = NULL;
        cs_err err;
        preset_line(&pr[i], line, sizeof line);
        if (cs_topo_open(pr[i].name, &t, &err) < 0)
            printf("%-22s %-9s %-6s (does not load: %s)\n", pr[i].name, "?", "?", err.msg);
        else
            printf("%-22s %-9s %-6d %s\n", pr[i].name, t->kind, t->n_ranks, line);
        cs_topo_free(t);
    }
    kinds = cs_topo_kind_all(&n);
    printf("\n# topology kinds (\"kind\" in a topology JSON file, --topo FILE)\n");
    for (i = 0; i < n; i++)
        printf("%-22s %s\n", kinds[i]->name, kinds[i]->summary);
}

/* `collsim list models|gpus`: the training-plan presets with their descriptions. */
static void list_plan_presets(int gpus)
{
    int i, n;
    const char *const *names = gpus ? cs_gpu_names(&n) : cs_model_names(&n);
    printf("# %s presets (--%s NAME in collsim plan)\n", gpus ? "gpu" : "model",
           gpus ? "gpu" : "model");
    for (i = 0; i < n; i++)
        printf("%-18s %s\n", names[i], gpus ? cs_gpu_about(names[i]) : cs_model_about(names[i]));
}

int cs_cmd_list(int argc, char **argv)
{
    static const char *const what[] = {"algorithms", "collectives", "topologies", "models",
                                       "gpus"};
    cs_err err;
    size_t i;
    if (argc < 2) {
        list_algorithms();
        printf("\n");
        list_collectives();
        printf("\n");
        list_topologies();
        return CS_EXIT_OK;
    }
    if (argc > 2) {
        cs_err_set(&err, CS_EUSAGE, NULL, "unexpected argument '%s' (usage: collsim list "
                   "algorithms|collectives|topologies)", argv[2]);
        return cs_cli_fail(&err);
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        printf("usage: collsim list [algorithms|collectives|topologies|models|gpus]\n\n"
               "Print the registered algorithms, collectives or topologies (all three without\n"
               "an argument) with one-line summaries; models and gpus are the presets of\n"
               "collsim plan.\n");
        return CS_EXIT_OK;
    }
    for (i = 0; i < sizeof what / sizeof what[0]; i++)
        if (!strcmp(argv[1], what[i]))
            break;
    switch (i) {
    case 0: list_algorithms(); break;
    case 1: list_collectives(); break;
    case 2: list_topologies(); break;
    case 3: list_plan_presets(0); break;
    case 4: list_plan_presets(1); break;
    default:
        cs_err_set(&err, CS_EUSAGE, NULL, "unknown list '%s' (known: algorithms, collectives, "
                   "topologies)", argv[1]);
        return cs_cli_fail(&err);
    }
    return CS_EXIT_OK;
}
