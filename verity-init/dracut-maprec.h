/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dracut runtime's record of its mappings (verity-init/dracut-maprec.c, lib/boot/maprec.c):
 * `setup` records what device-mapper reports back for each mapping it made; `pre-pivot`
 * compares the live mappings with that record before the switch. */
#ifndef VERITY_DRACUT_MAPREC_H
#define VERITY_DRACUT_MAPREC_H

#include "err.h"

/* Record the mappings names[0..n) as they are live now (their table line and dm UUID) in
 * RUNDIR/setup/mappings, replacing any earlier record. */
int vi_dracut_record(const char *rundir, const char *const names[], unsigned n,
		     struct vi_error *err);

/* The record against what is live: it exists and parses; each of want[0..nwant) is in it;
 * each recorded mapping exists (not suspended, no inactive table), has the recorded table line
 * and dm UUID byte for byte and the status V; none of watch[0..nwatch) that is not recorded is
 * a live verity mapping. A refusal names the mapping in *ret_name (want[0] when the record
 * itself is refused) and says why in err. */
int vi_dracut_record_check(const char *rundir, const char *const want[], unsigned nwant,
			   const char *const watch[], unsigned nwatch, const char **ret_name,
			   struct vi_error *err);

#endif
