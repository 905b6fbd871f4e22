/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dracut runtime's record of its mappings (verity-init/agent/dracut-maprec.c, lib/boot/maprec.c):
 * `setup` records what device-mapper reports back for each mapping it made; `pre-pivot`
 * compares the live mappings with that record before the switch. */
#ifndef VERITY_DRACUT_MAPREC_H
#define VERITY_DRACUT_MAPREC_H

#include <stdbool.h>

#include "agent.h"

/* setup: record the mappings names[0..n) as they are live now (their table line and dm UUID)
 * in the run directory's setup/mappings, replacing any earlier record. A failure is recorded
 * (stage activate, of target t) and logged. */
int vi_dracut_record_mappings(struct agent *a, const struct vi_target *t,
			      const char *const names[], unsigned n);

/* pre-pivot: the mappings are the very ones setup made. The record exists and parses; the
 * root's mapping (the recovery root's under its name, when plain) and a verified /usr's are in
 * it; each recorded mapping exists (not suspended, no inactive table) with the recorded table
 * line and dm UUID byte for byte and the status V; no verity mapping under the root's or /usr's
 * name is live that setup did not record. A refusal is recorded (stage activate) and logged. */
int vi_dracut_mappings_check(struct agent *a, bool plain);

#endif
