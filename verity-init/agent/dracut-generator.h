/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dracut module's systemd generator (systemd in the initramfs), written by the agent:
 * verity-init/agent/dracut-generator.c. */
#ifndef VERITY_DRACUT_GENERATOR_H
#define VERITY_DRACUT_GENERATOR_H
#include <stdbool.h>
#include <stddef.h>

#include "agent.h"

/* the name systemd runs it by: a link to the agent among the generators */
#define VI_GENERATOR_NAME "verity-init-generator"

/* dracut's getcmdline() under root directory rootfd (include/dracutline.h): the lines of
 * etc/cmdline.d/NAME.conf (in byte order), etc/cmdline and proc/cmdline. A file that is not there
 * or not a regular file gives nothing, as `[ -e ]` and a failing `read` do; so does a file of
 * the image (etc/) that cannot be opened or read, as a failing redirection does. -E2BIG when
 * a file or the line is longer than size - 1 bytes, or proc/cmdline's read errno. */
int vi_dracut_getcmdline(int rootfd, char *line, size_t size);

/* `verity-init-generator NORMAL [EARLY [LATE]]` (as systemd runs it),
 * `verity-init generator [--root DIR] NORMAL [EARLY [LATE]]` (the command line's files under
 * DIR), or `verity-init generator [--root DIR] --print-cmdline` (the line it reads, on stdout).
 * argv[0] is the program (multicall) or the verb. Returns the exit status. */
int vi_dracut_generator_main(struct agent *a, int argc, char **argv, bool multicall);

#endif
