// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/boot/efivars.c on the host: a directory that is no efivarfs (no EFI boot, or none mounted)
 * holds no variable systemd reads, whatever files it has; a missing one is not an error. The
 * refusal of a real SystemdOptions variable is tested with OVMF in tests/vm/efi_options_test.sh. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "efivars.h"

static void test_not_efivarfs_is_not_looked_into(void **state)
{
	char dir[] = "/tmp/vi-efivars-XXXXXX", path[128];
	struct vi_error err = { "" };
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/" VI_EFI_SYSTEMD_OPTIONS, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	/* a plain directory with the name in it is not where systemd reads the variable */
	assert_int_equal(vi_efi_options_check(dir, &err), 0);
	unlink(path);
	rmdir(dir);
	assert_int_equal(vi_efi_options_check(dir, &err), 0);
	assert_int_equal(vi_efivarfs_mount(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_efivarfs_is_not_looked_into),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
