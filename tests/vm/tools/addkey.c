// SPDX-License-Identifier: LGPL-2.1-or-later
/* addkey SERIAL FILE : add_key("asymmetric", NULL, FILE's bytes, SERIAL) and print what the
 * kernel answered ("ADDKEY ok KEY" or "ADDKEY refused ERRNO-TEXT"). Built static for the test
 * root of tests/vm/dmverity_keyring_test.sh, which tries to put a key into the sealed
 * .dm-verity keyring from the running system. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static unsigned char buf[65536];
	FILE *f;
	size_t n;
	long key;

	if (argc != 3 || !(f = fopen(argv[2], "rb")))
		return 2;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	key = syscall(SYS_add_key, "asymmetric", NULL, buf, n, (long)strtol(argv[1], NULL, 0));
	if (key < 0)
		printf("ADDKEY refused %s\n", strerror(errno));
	else
		printf("ADDKEY ok %ld\n", key);
	return key < 0;
}
