// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * insncount: a QEMU TCG plugin that counts guest instructions by address
 * range, deterministically, for the harness's measurements (make bench).
 *
 * Arguments (-plugin libinsncount.so,arg=...,arg=...):
 *   range=NAME:START:END  count instructions at START <= vaddr < END (hex);
 *                         may be repeated; ranges may overlap
 *   marker=ADDR           counting is off until the instruction at ADDR (hex)
 *                         executes, and each later execution toggles it, so a
 *                         guest program brackets the measured window by
 *                         calling a marker function twice
 *   out=FILE              write the results there (default: QEMU's log)
 * "kernel" and "user" totals (vaddr above/below the canonical hole) are always
 * counted.  Counts are per executed translation block (a TB left early by an
 * exception counts whole), which is exact for straight-line execution and
 * off by at most a TB per exception.  Run the guest with one vCPU and
 * -accel tcg,thread=single: the counters are not atomic.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_RANGES 64
#define KERNEL_START 0xffff800000000000ULL

struct range {
	char *name;
	uint64_t start, end;
	uint64_t count;
};

static struct range ranges[MAX_RANGES + 2];	/* + kernel, user */
static int nranges;
static uint64_t marker;
static bool have_marker;
static bool counting = true;
static uint64_t markers_seen;
static char *out_path;

/* per translated block: how many of its instructions fall in each range */
struct tb_counts {
	int n;
	struct {
		int range;
		uint32_t insns;
	} c[];
};

static void tb_exec(unsigned int vcpu, void *udata)
{
	struct tb_counts *t = udata;
	int i;

	if (!counting)
		return;
	for (i = 0; i < t->n; i++)
		ranges[t->c[i].range].count += t->c[i].insns;
}

static void marker_exec(unsigned int vcpu, void *udata)
{
	counting = !counting;
	markers_seen++;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uint32_t per[MAX_RANGES + 2] = { 0 };
	struct tb_counts *t;
	int r, k = 0;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);

		for (r = 0; r < nranges + 2; r++)
			if (va >= ranges[r].start && va < ranges[r].end)
				per[r]++;
		if (have_marker && va == marker)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_exec,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
	for (r = 0; r < nranges + 2; r++)
		k += per[r] != 0;
	if (!k)
		return;
	t = g_malloc(sizeof(*t) + k * sizeof(t->c[0]));
	t->n = 0;
	for (r = 0; r < nranges + 2; r++) {
		if (!per[r])
			continue;
		t->c[t->n].range = r;
		t->c[t->n].insns = per[r];
		t->n++;
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, t);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	GString *s = g_string_new(NULL);
	int r;

	g_string_append_printf(s, "markers %" PRIu64 "\n", markers_seen);
	for (r = 0; r < nranges + 2; r++)
		g_string_append_printf(s, "range %s %" PRIu64 "\n",
				       ranges[r].name, ranges[r].count);
	if (out_path) {
		FILE *f = fopen(out_path, "w");

		if (f) {
			fputs(s->str, f);
			fclose(f);
		}
	} else {
		qemu_plugin_outs(s->str);
	}
	g_string_free(s, true);
}

static int parse_range(const char *v)
{
	char **p = g_strsplit(v, ":", 3);
	int ok = 0;

	if (p[0] && p[1] && p[2] && nranges < MAX_RANGES) {
		ranges[nranges].name = g_strdup(p[0]);
		ranges[nranges].start = g_ascii_strtoull(p[1], NULL, 16);
		ranges[nranges].end = g_ascii_strtoull(p[2], NULL, 16);
		nranges++;
		ok = 1;
	}
	g_strfreev(p);
	return ok;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq)
			goto bad;
		if (!strncmp(argv[i], "range=", 6)) {
			if (!parse_range(eq + 1))
				goto bad;
		} else if (!strncmp(argv[i], "marker=", 7)) {
			marker = g_ascii_strtoull(eq + 1, NULL, 16);
			have_marker = true;
			counting = false;
		} else if (!strncmp(argv[i], "out=", 4)) {
			out_path = g_strdup(eq + 1);
		} else {
			goto bad;
		}
	}
	ranges[nranges] = (struct range){ "kernel", KERNEL_START, UINT64_MAX, 0 };
	ranges[nranges + 1] = (struct range){ "user", 0, KERNEL_START, 0 };
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
bad:
	fprintf(stderr, "insncount: bad argument '%s'\n", argv[i]);
	return -1;
}
