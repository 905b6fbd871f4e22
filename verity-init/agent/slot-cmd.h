/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `verity-init slot ...`: the A/B slot state store from the running system (verity-init/agent/slot-cmd.c,
 * docs/slots.md): status, mark-good, mark-bad, and the verbs RAUC's custom backend calls. */
#ifndef VERITY_SLOT_CMD_H
#define VERITY_SLOT_CMD_H

#define VI_SLOT_STORE_DEFAULT "/dev/disk/by-partlabel/verity-slots"

/* argv[0] is "slot". Returns the exit status: 0, 1 (refused or failed), 2 (usage). */
int vi_slot_cmd_main(int argc, char **argv);

#endif
