/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The initramfs policy file /etc/verity-init.conf: what the image builder allows, which the
 * (possibly attacker-edited) command line cannot widen. Format, one setting per line:
 *   # comment
 *   fail=recovery,panic            default fail actions when verity.fail= is absent
 *   timeout=30                     default device wait when verity.timeout= is absent
 *   allow_shell=no                 "shell" in a fail list is dropped unless yes
 *   allow_weak=ignore-zero-blocks  weakening options the command line may use (comma list,
 *                                  empty or "none": none): ignore-corruption,
 *                                  check-at-most-once, ignore-zero-blocks, no-superblock,
 *                                  data-blocks-below-superblock, verity-off
 *   require_signature=no           yes: a root hash must come with a signature or manifest;
 *                                  kernel: with a signature the kernel itself checks
 *                                  (verity.sig=, root-hash-signature=, a keyring key), and
 *                                  dm_verity.require_signatures=1 is forced on
 *   min_version=0                  anti-rollback floor for signed manifests
 *   init=/sbin/init                the only init= the command line may give (none: the
 *                                  default /sbin/init); unset: any path vi_init_path_check
 *                                  accepts
 *   init_env=LANG,TZ               environment names the command line may set for init
 *                                  (and with systemd.setenv=) besides TERM and BOOT_IMAGE;
 *                                  names that load code or reconfigure PID 1 (LD_*, PATH,
 *                                  SYSTEMD_*, ...: vi_env_name_forbidden) are refused here
 *   require_manifest=no            yes: the root needs a signed manifest (which carries a
 *                                  version); min_version above 0 implies it
 *   require_tpm=no                 yes: the boot stops when the booted target cannot be
 *                                  measured into the TPM (no TPM, or the extend failed);
 *                                  no: measured when there is a TPM, skipped (one log line)
 *                                  when there is none
 *   tpm_pcr=14                     the PCR the measurement extends, 8-15 (the operating
 *                                  system's static PCRs; the comment below says why 14)
 *   tpm_measure=pcr                where the measurement goes (include/measure.h): pcr, the
 *                                  agent's event into tpm_pcr; nvpcr, systemd's event into
 *                                  its `verity` NvPCR (NV index 0x01d10202) as systemd >= 260
 *                                  measures verity activations; both
 *   allow_unverified_root=no       yes: a verified /usr may run under an unverified, writable
 *                                  root= partition (its /etc, units and ld.so.preload are
 *                                  then whoever can write it; docs/security.md)
 *   ipe_policy=none                a PKCS#7-signed IPE policy in the initramfs, read before
 *                                  the switch and activated right after it (include/ipe.h)
 *   slots=a,b                      A/B boot (docs/slots.md): the slots, a,b up to a,b,c,d;
 *                                  every root comes from a slot's signed manifest: the
 *                                  command line names no root, recovery root or /usr
 *   slot_store=PARTLABEL=verity-slots  the slot state store, the one device ever written
 *   slot_prefix=root-              slot X: data PARTLABEL=<prefix>X, hash and signed manifest
 *                                  PARTLABEL=<prefix>X-verity
 *   slot_floor=store               tpm: the rollback floor is also a TPM NV counter, which
 *                                  the agent reads (and defines when missing) at boot and
 *                                  `slot mark-good` raises (include/tpmnv.h); without a TPM
 *                                  the store's floor alone, or no boot with require_tpm=yes
 *   slot_floor_nv=0x01005649       that counter's NV index, in the owner's range
 *   slot_full_read=no              yes: `verity-init slot mark-good` (and RAUC's mark-good)
 *                                  first reads every block of the running slot's mapping and
 *                                  refuses a slot whose read fails (the status file's
 *                                  full_read=yes tells the running system)
 *   managed=no                     yes: a boot that ended on a dm-verity corruption (a pstore
 *                                  record) marks its slot bad, or without slots boots the same
 *                                  root again with I/O errors for bad blocks until its root
 *                                  hash changes (include/managed.h)
 * Unknown keys, a key repeated with another value, lines without "=" are errors. No file at
 * all means the strictest defaults (nothing weakening, no shell). */
#ifndef VERITY_POLICY_H
#define VERITY_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "tpm2.h"

#define VI_POLICY_FILE      "/etc/verity-init.conf"
#define VI_POLICY_MAX_SIZE  (64u * 1024u)
#define VI_POLICY_MAX_LINE  1024u
/* PCR 14: no systemd component extends it (systemd: 5, 11, 12, 13, 15), Ubuntu Core measures
 * its boot model and command line into 12, GRUB uses 8 and 9, the kernel 9 and 10 (IMA), and
 * shim only puts its static MOK lists into 14 (docs/signing.md, "TPM measurement"). */
#define VI_POLICY_TPM_PCR_DEFAULT 14u
#define VI_POLICY_SLOT_STORE_DEFAULT "PARTLABEL=verity-slots"
#define VI_POLICY_SLOT_PREFIX_DEFAULT "root-"
#define VI_POLICY_SLOT_PREFIX_MAX 33u   /* with its NUL: PARTLABEL is 36 UTF-16 units */

/* Weakening options (allow_weak= words). */
#define VI_WEAK_IGNORE_CORRUPTION   (1u << 0)
#define VI_WEAK_CHECK_AT_MOST_ONCE  (1u << 1)
#define VI_WEAK_IGNORE_ZERO_BLOCKS  (1u << 2)
#define VI_WEAK_NO_SUPERBLOCK       (1u << 3)   /* superblock=false, dm-mod.create= tables */
#define VI_WEAK_DATA_BLOCKS_BELOW_SB (1u << 4)  /* data-blocks= lower than the superblock's:
                                                 * checked by the agent after reading it */
#define VI_WEAK_VERITY_OFF          (1u << 5)   /* systemd.verity=0 */

#define VI_TPM_MEASURE_PCR   1u   /* the agent's event into tpm_pcr */
#define VI_TPM_MEASURE_NVPCR 2u   /* systemd's event into its verity NvPCR */

struct vi_policy {
	enum vi_fail_action fail[VI_MAX_FAIL];
	bool fail_set;
	unsigned timeout_s;
	bool timeout_set;
	bool allow_shell;
	uint32_t allow_weak;        /* VI_WEAK_* */
	bool require_signature;
	bool require_kernel_signature;   /* require_signature=kernel */
	uint64_t min_version;
	char init[VI_MAX_PATH];     /* "" or the only init= allowed */
	char init_env[VI_MAX_ENV][VI_MAX_ENV_NAME];   /* init_env= names */
	unsigned init_env_count;
	bool require_manifest;
	bool require_tpm;
	bool allow_unverified_root; /* a verified /usr under an unverified root= partition */
	unsigned tpm_pcr;           /* VI_POLICY_TPM_PCR_DEFAULT */
	unsigned tpm_measure;       /* tpm_measure=: VI_TPM_MEASURE_PCR and/or _NVPCR */
	char ipe_policy[VI_MAX_PATH];   /* "" or the signed IPE policy to activate */
	unsigned slot_count;        /* slots=: 2..4 A/B slots; 0: no A/B boot */
	char slot_store[VI_MAX_PATH];   /* slot_store=, VI_POLICY_SLOT_STORE_DEFAULT */
	char slot_prefix[VI_POLICY_SLOT_PREFIX_MAX];   /* slot_prefix=, "root-" */
	bool slot_floor_tpm;        /* slot_floor=tpm: the rollback floor in a TPM NV counter */
	bool managed;               /* managed=yes: managed recovery after the switch (managed.h) */
	uint32_t slot_floor_nv;     /* slot_floor_nv=, VI_TPM_FLOOR_NV_DEFAULT */
	bool slot_full_read;        /* slot_full_read=: mark-good reads the whole slot first */
};

/* The module parameters the policy forces ("module.param=value" words, or NULL): the kernel's
 * own signature requirement when the policy wants kernel-checked signatures. */
const char *vi_policy_forced_modparams(const struct vi_policy *p);

/* Names the environment of init and of systemd's services must never take from the command
 * line, whatever the policy says: the dynamic loader's and glibc's (LD_*, GCONV_PATH, LOCPATH,
 * MALLOC_*, GLIBC_TUNABLES, ...), the shells' (PATH, IFS, ENV, BASH_ENV, ...), systemd's
 * (SYSTEMD_*, NOTIFY_SOCKET, LISTEN_*) and dracut's (RD_*, DRACUT_*). */
bool vi_env_name_forbidden(const char *name, size_t len);

/* May the command line set environment NAME for the booted system under policy p? TERM and
 * BOOT_IMAGE always, the policy's init_env= names, never a forbidden one. */
bool vi_policy_env_allowed(const struct vi_policy *p, const char *name, size_t len);

/* Strictest defaults: nothing allowed, nothing required beyond the command line. */
void vi_policy_init(struct vi_policy *p);

/* Parse a policy file held in buf[0..len). Pure, no I/O. -EINVAL with err set (naming the
 * line); -E2BIG above VI_POLICY_MAX_SIZE. *ret untouched on failure. */
int vi_policy_parse(const char *buf, size_t len, struct vi_policy *ret, struct vi_error *err);

/* Read and parse path; a missing file gives vi_policy_init's defaults and returns 0. */
int vi_policy_load(const char *path, struct vi_policy *ret, struct vi_error *err);

/* Refuse (-EPERM, err set) a configuration that names a root, a recovery root or a /usr under
 * slots=, uses a weakening option the policy does not allow, "shell" in the fail list without
 * allow_shell, an init= other than the policy's init=, or a root hash without a signature
 * source while a signature is required. */
int vi_policy_check(const struct vi_config *cfg, const struct vi_policy *p,
		    struct vi_error *err);

/* What the agent calls after vi_cmdline_parse: fill fail=/timeout= defaults the command line
 * left out, raise require_signature, drop "shell" unless allowed (and a policy default
 * "recovery" when no recovery root is configured; an empty list becomes "panic"), then
 * vi_policy_check. All or nothing: on a refusal *cfg is as it was. */
int vi_policy_apply(const struct vi_policy *p, struct vi_config *cfg, struct vi_error *err);

/* True when the policy allows the VI_WEAK_* option bit. */
bool vi_policy_allows(const struct vi_policy *p, uint32_t weak);

/* "ignore-corruption", ... for a single VI_WEAK_* bit; NULL otherwise. */
const char *vi_weak_name(uint32_t weak);

#endif
