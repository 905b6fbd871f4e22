/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What systemd's unit files need of the strings the dracut module's generator writes into
 * them (verity-init/agent/dracut-generator.c). Functions return 0 or a negative errno. */
#ifndef VERITY_UNITNAME_H
#define VERITY_UNITNAME_H

#include <stddef.h>

/* The unit name prefix of an absolute path, as `systemd-escape --path` makes it
 * ("/dev/mapper/a-b" -> "dev-mapper-a\x2db"): '/' between components becomes '-', a leading
 * '.' and every byte other than [A-Za-z0-9:_.] becomes \xNN. -EINVAL for a path not in the one
 * form that names it (systemd's: absolute, no "//", no "." or "..", no trailing '/'): the
 * generator escapes /dev/mapper/NAME only. -ENOBUFS when it does not fit in size bytes. */
int vi_unit_path_escape(const char *path, char *out, size_t size);

/* A value for a unit file line: '%' doubled (systemd expands specifiers, and drops a line with
 * one it does not know). -EINVAL for a byte that would end or continue the line or change its
 * meaning: a control byte, '\' (a trailing one continues the line) or a leading blank or '"'.
 * -ENOBUFS when it does not fit in size bytes. */
int vi_unit_value_escape(const char *value, char *out, size_t size);

#endif
