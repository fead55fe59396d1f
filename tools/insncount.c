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
 *   profile=FILE          also write, for every kernel instruction executed
 *                         while counting, "ADDRESS COUNT" lines (hex, decimal)
 *                         there, to be attributed to functions with System.map
 * "kernel" and "user" totals (vaddr above/below the canonical hole) are always
 * counted.  A REP-prefixed string instruction counts once, as the hardware
 * retires it, not once per iteration as TCG runs it (it re-enters the
 * instruction's translation block for each iteration); the iterations beyond
 * the first are reported as "rep-repeats".  Counts are per executed
 * translation block (a TB left early by an exception counts whole), which is
 * exact for straight-line execution and off by at most a TB per exception.  Run the guest with one vCPU and
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
static char *profile_path;

/* profile=: the kernel instructions of each translated block, and its runs */
struct tb_profile {
	uint64_t execs;
	size_t n;
	uint64_t va[];
};

static GPtrArray *profiles;

/*
 * per translated block: how many of its instructions fall in each range, and
 * where its first and last instructions are, to tell the iterations of a REP
 * string instruction
 */
struct tb_counts {
	uint64_t first, last;
	bool rep_first;
	struct tb_profile *prof;
	int n;
	struct {
		int range;
		uint32_t insns;
	} c[];
};

static uint64_t last_insn;	/* the last instruction of the last block */
static uint64_t rep_repeats;

static void tb_exec(unsigned int vcpu, void *udata)
{
	struct tb_counts *t = udata;
	bool repeat = t->rep_first && last_insn == t->first;
	int i;

	last_insn = t->last;
	if (!counting)
		return;
	if (repeat) {
		/* another iteration: the block is the REP instruction alone */
		rep_repeats++;
		return;
	}
	for (i = 0; i < t->n; i++)
		ranges[t->c[i].range].count += t->c[i].insns;
	if (t->prof)
		t->prof->execs++;
}

/* Whether the instruction is a string instruction with a REP prefix */
static bool is_rep_string(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t len = qemu_plugin_insn_size(insn), i;
	bool rep = false;

	for (i = 0; i < len; i++) {
		switch (b[i]) {
		case 0xf2: case 0xf3:
			rep = true;
			continue;
		case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64:
		case 0x65: case 0x66: case 0x67: case 0xf0:
			continue;
		}
		if ((b[i] & 0xf0) == 0x40)	/* REX */
			continue;
		break;
	}
	if (!rep || i == len)
		return false;
	switch (b[i]) {
	case 0x6c: case 0x6d: case 0x6e: case 0x6f:	/* INS, OUTS */
	case 0xa4: case 0xa5: case 0xa6: case 0xa7:	/* MOVS, CMPS */
	case 0xaa: case 0xab: case 0xac: case 0xad:	/* STOS, LODS */
	case 0xae: case 0xaf:				/* SCAS */
		return true;
	}
	return false;
}

static struct tb_profile *profile_tb(struct qemu_plugin_tb *tb, size_t n)
{
	struct tb_profile *p;
	size_t i;

	p = g_malloc0(sizeof(*p) + n * sizeof(p->va[0]));
	for (i = 0; i < n; i++) {
		uint64_t va = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));

		if (va >= KERNEL_START)
			p->va[p->n++] = va;
	}
	if (!p->n) {
		g_free(p);
		return NULL;
	}
	g_ptr_array_add(profiles, p);
	return p;
}

static void write_profile(void)
{
	GHashTable *h = g_hash_table_new_full(g_int64_hash, g_int64_equal,
					      g_free, g_free);
	GHashTableIter it;
	gpointer k, v;
	FILE *f;
	guint i;
	size_t j;

	for (i = 0; i < profiles->len; i++) {
		struct tb_profile *p = g_ptr_array_index(profiles, i);

		for (j = 0; j < p->n && p->execs; j++) {
			uint64_t *c = g_hash_table_lookup(h, &p->va[j]);

			if (!c) {
				uint64_t *key = g_memdup2(&p->va[j], sizeof(p->va[j]));

				c = g_malloc0(sizeof(*c));
				g_hash_table_insert(h, key, c);
			}
			*c += p->execs;
		}
	}
	f = fopen(profile_path, "w");
	if (f) {
		g_hash_table_iter_init(&it, h);
		while (g_hash_table_iter_next(&it, &k, &v))
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n",
				*(uint64_t *)k, *(uint64_t *)v);
		fclose(f);
	}
	g_hash_table_destroy(h);
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
	t = g_malloc(sizeof(*t) + k * sizeof(t->c[0]));
	t->first = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0));
	t->last = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, n - 1));
	t->rep_first = is_rep_string(qemu_plugin_tb_get_insn(tb, 0));
	t->prof = profile_path ? profile_tb(tb, n) : NULL;
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
	g_string_append_printf(s, "rep-repeats %" PRIu64 "\n", rep_repeats);
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
	if (profile_path)
		write_profile();
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
		} else if (!strncmp(argv[i], "profile=", 8)) {
			profile_path = g_strdup(eq + 1);
			profiles = g_ptr_array_new();
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
