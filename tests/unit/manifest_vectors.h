/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The signed manifest of the unit tests (test_manifest.c, test_minisign.c, test_trust.c), signed
 * with the real tool (minisign 0.11, Debian bookworm):
 *   minisign -G -W -p k.pub -s k.key             (and k2.* the same way)
 *   minisign -S -s k.key -m manifest -t 'verity-init test vector' -x manifest.minisig
 *   minisign -S -s k2.key -m manifest -t 'other key' -x manifest.k2.minisig
 * The keys are test keys, published here on purpose. */
#ifndef VERITY_TEST_MANIFEST_VECTORS_H
#define VERITY_TEST_MANIFEST_VECTORS_H

#define VEC_ROOT "4e8b1bc8e0cf6bce2c1b4a58f1b1fe3a4ec2e4a97e2b5f1d1f0e4b0a5e9d2c11"
#define VEC_PARTUUID "6e8a3b8c-5d0e-4e34-9d1e-8d3a0c4b7f21"

static const char VEC_MANIFEST[] =
	"verity-manifest 1\n"
	"version 7\n"
	"root-hash " VEC_ROOT "\n"
	"hash-algorithm sha256\n"
	"format 1\n"
	"data-block-size 4096\n"
	"hash-block-size 4096\n"
	"data-blocks 4096\n"
	"hash-offset 16777216\n"
	"salt 0011223344556677\n"
	"superblock yes\n"
	"data-device PARTUUID=" VEC_PARTUUID "\n";

/* k.pub and k2.pub */
static const char VEC_PUB[] =
	"untrusted comment: minisign public key B69F29EA89A6E4A4\n"
	"RWSk5KaJ6imftpKcZppgAyOWpZOSxIa/ygKDAvcD07fdwkL8GzeQee7o\n";

static const char VEC_PUB2[] =
	"untrusted comment: minisign public key 4D180D24B34BE6B4\n"
	"RWS05kuzJA0YTWOsZ1Ux+3XXeBsNMTWcd6Im6D57qRXM5r1et7eDcsCG\n";

/* VEC_MANIFEST signed with k.key and with k2.key */
static const char VEC_SIG[] =
	"untrusted comment: signature from minisign secret key\n"
	"RUSk5KaJ6imftiZvaBENSuLXCvO5w5/YNpsSBWAoXvoZ408QuNotdU8RP8byNtCh89kooFYTVX2IbyKK1tCD+jHo3pWOySb/XA0=\n"
	"trusted comment: verity-init test vector\n"
	"dmte8R7/Tlme8/pTp0AhzpQYtAK5bPj2xcrMPGwx8Dqhu/YLKuyY5Irm/OrllYFOZ5HqAJB17XKEfguJtTPsCg==\n";

static const char VEC_SIG_K2[] =
	"untrusted comment: signature from minisign secret key\n"
	"RUS05kuzJA0YTbqc2kiHsW/JJ/N6+butALdlTb23B3WJ3RDLWWhntSUoDO+a1BjVzRQBkR5+XeK6qZwY1e8mWP4q3KggM5v5Rgc=\n"
	"trusted comment: other key\n"
	"J8OesQyVifZ+s5jQ506t9PP9P8XQABChzyQ+SaZg0fxZRDUBBtswOzjV8sFdEXvjTbYo5dz3tlq2pt7U6a9qAA==\n";

#endif
