/* topo_opts.c: the options every command with a topology takes beside --topo (cli layer):
 * --nodes N resizes a cluster, --calibration FILE lays a calibration's figures over the
 * topology; both become a spec cs_topo_spec_root reads ("SPEC#nodes=N#calibration=F"). */
#include "cli/cli.h"
#include "sim/size.h"
#include "scenarios/plan.h"

#include <stdio.h>
#include <string.h>

const char *cs_cli_spec(const char *topo, const cs_topo_mods *m, char *spec, size_t size,
                        cs_err *err)
{
    long n;
    int len;
    if (!m->nodes && !m->cal)
        return topo;
    len = snprintf(spec, size, "%s", topo);
    if (m->nodes && cs_parse_int(m->nodes, "--nodes", 1, 65536, &n, err) < 0)
        return NULL;
    if (m->nodes && len >= 0 && len < (int)size)
        len += snprintf(spec + len, size - (size_t)len, "#nodes=%ld", n);
    if (m->cal && len >= 0 && len < (int)size)
        len += snprintf(spec + len, size - (size_t)len, "#calibration=%s", m->cal);
    if (len < 0 || len >= (int)size) {
        cs_err_set(err, CS_EUSAGE, "--topo", "name too long");
        return NULL;
    }
    return spec;
}

int cs_cli_plan_spec(cs_plan *p, const cs_topo_mods *m, cs_err *err)
{
    const char *spec;
    char buf[CS_CLI_SPEC_MAX];
    if (!m->nodes && !m->cal)
        return 0;
    if (p->topo_json)
        return cs_err_set(err, CS_EUSAGE, m->nodes ? "--nodes" : "--calibration", "applies to "
                          "a topology named by --topo or system.topo (a preset or a file), not "
                          "an inline topology");
    if (!p->topo_spec[0])
        return cs_err_set(err, CS_EUSAGE, m->nodes ? "--nodes" : "--calibration", "applies to "
                          "the plan's topology: give --topo or system.topo");
    if (!(spec = cs_cli_spec(p->topo_spec, m, buf, sizeof buf, err)))
        return CS_EUSAGE;
    if (strlen(spec) >= sizeof p->topo_spec)
        return cs_err_set(err, CS_EUSAGE, "--topo", "name too long");
    snprintf(p->topo_spec, sizeof p->topo_spec, "%s", spec);
    return 0;
}

