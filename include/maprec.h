/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The record of the mappings the dracut runtime's `setup` made, for its `pre-pivot` to compare
 * with what is live before the switch (lib/boot/maprec.c). Each entry: the mapping's name, its dm
 * UUID and its table line exactly as device-mapper reported it back after the load. The file,
 * RUNDIR/setup/mappings, lives in a directory only its owner can enter (0700) and is itself
 * 0600; it is replaced atomically and read defensively (fuzz target fuzz_maprec). */
#ifndef VERITY_MAPREC_H
#define VERITY_MAPREC_H

#include <stddef.h>

#include "config.h"
#include "devspec.h"
#include "err.h"
#include "table.h"

#define VI_MAPREC_MAX      4u                   /* root, usr: room to spare */
#define VI_MAPREC_LINE_MAX (VI_TABLE_MAX + 64u) /* "START LENGTH TYPE " + the parameters */
#define VI_MAPREC_DIR      "setup"              /* under the run directory, mode 0700 */
#define VI_MAPREC_FILE     "mappings"           /* mode 0600 */
/* the whole file: header, entries, end line */
#define VI_MAPREC_TEXT_MAX (64u + VI_MAPREC_MAX * (VI_MAX_NAME + VI_MAX_DM_UUID + \
						 VI_MAPREC_LINE_MAX + 32u))

struct vi_maprec_entry {
	char name[VI_MAX_NAME];      /* the mapping's name */
	char uuid[VI_MAX_DM_UUID];   /* its dm UUID, "" when it has none */
	char table[VI_MAPREC_LINE_MAX]; /* "0 LENGTH verity PARAMS", as read back */
};

struct vi_maprec {
	unsigned n;
	struct vi_maprec_entry e[VI_MAPREC_MAX];
};

/* Add (or replace, for the same name) an entry. -EINVAL with err set when a string cannot be
 * recorded: a name or UUID with a blank, a control byte or a byte above 0x7e, an empty name, a
 * table line with a control byte; -ENOSPC when full; -ENOBUFS when a string is too long. */
int vi_maprec_add(struct vi_maprec *rec, const char *name, const char *uuid, const char *table,
		  struct vi_error *err);

/* The entry for name, or NULL. */
const struct vi_maprec_entry *vi_maprec_find(const struct vi_maprec *rec, const char *name);

/* The file's text into buf; *ret_len its length. -ENOBUFS when it does not fit. */
int vi_maprec_format(const struct vi_maprec *rec, char *buf, size_t size, size_t *ret_len);

/* Parse the file's text (size bytes, not NUL-terminated). *ret is untouched on failure; err
 * says which line is refused. */
int vi_maprec_parse(const char *text, size_t size, struct vi_maprec *ret, struct vi_error *err);

/* Whether the live mapping (its UUID and table line, as device-mapper reports them now) is the
 * one recorded in e: byte for byte. -EPERM with err naming what differs. */
int vi_maprec_compare(const struct vi_maprec_entry *e, const char *live_uuid,
		      const char *live_table, struct vi_error *err);

/* Write rec as RUNDIR/setup/mappings (rundir created 0755 if missing, setup 0700; a directory
 * there that is a symbolic link, not owned by us or open to others is refused), through a
 * temporary file created O_EXCL|O_NOFOLLOW 0600 and renamed over the old record. */
int vi_maprec_write(const char *rundir, const struct vi_maprec *rec, struct vi_error *err);

/* Read and parse RUNDIR/setup/mappings: the directory and the file as vi_maprec_write leaves
 * them (not symbolic links, ours, not open to others, a regular file) or refused. -ENOENT when
 * there is no record. */
int vi_maprec_read(const char *rundir, struct vi_maprec *ret, struct vi_error *err);

/* Remove the record (the mappings it describes are gone); 0 also when there was none. */
int vi_maprec_remove(const char *rundir);

#endif
