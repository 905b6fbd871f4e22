/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The parameters of one verity target, as one table: their spellings in every syntax that
 * writes them, their ranges, which of them a target was given, and the rule for a parameter
 * given twice. The parsers (lib/config/vopts.c, lib/config/dminit.c, lib/config/manifest.c, verity-image's options)
 * only read their syntax and hand the values here; the formatters print from the same table.
 *
 * The "given" set of a target is t->given (VI_GIVEN_* bits, which are VI_PARAM_BIT of the
 * parameters below them) plus the parameters whose value tells: a FEC device, a corruption or
 * I/O-error mode other than the default, a signature, FEC blocks, the two flags.
 * The repeat rule: a parameter given again with the value it has is accepted; with another
 * value it is refused (-EEXIST), and the parser names it in its own spelling. */
#ifndef VERITY_PARAMS_H
#define VERITY_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vi_config;
struct vi_params;
struct vi_target;

enum vi_corruption {             /* what the kernel does on a bad block */
	VI_CORRUPT_EIO = 0,      /* default: I/O error */
	VI_CORRUPT_IGNORE,
	VI_CORRUPT_RESTART,
	VI_CORRUPT_PANIC,
};

enum vi_ioerror {                /* kernel 6.12+: restart_on_error / panic_on_error */
	VI_IOERR_EIO = 0,
	VI_IOERR_RESTART,
	VI_IOERR_PANIC,
};

/* The dm-verity optional arguments that every syntax of a target says in the same form: the
 * option words, dm-mod.create=, the signed manifest and the kernel table. One struct, embedded
 * in struct vi_target, struct vi_manifest and struct vi_table and copied whole between them.
 * The table's other optional arguments are not in it: FEC names a device (a spec before
 * activation, a number in the table) and counts in other units, the signature key is
 * dm-mod.create's alone, and try_verify_in_tasklet is no manifest key. All zero: the kernel's
 * defaults. */
struct vi_verity_opts {
	enum vi_corruption corruption;  /* VI_PARAM_CORRUPTION */
	enum vi_ioerror ioerror;        /* VI_PARAM_IOERROR */
	bool ignore_zero_blocks;        /* VI_PARAM_ZERO_BLOCKS */
	bool check_at_most_once;        /* VI_PARAM_CHECK_ONCE */
};

enum vi_param {
	/* The first ones have a VI_GIVEN_* bit (below) in t->given. */
	VI_PARAM_HASH = 0,        /* hash algorithm name */
	VI_PARAM_FORMAT,          /* hash type (superblock version) 0 or 1 */
	VI_PARAM_DATA_BS,         /* data block size, bytes */
	VI_PARAM_HASH_BS,         /* hash block size, bytes */
	VI_PARAM_DATA_BLOCKS,     /* data blocks, > 0 */
	VI_PARAM_HASH_OFFSET,     /* hash area start on the hash device, bytes, multiple of 512 */
	VI_PARAM_SALT,            /* 0..256 bytes */
	VI_PARAM_UUID,            /* 16 bytes */
	VI_PARAM_SUPERBLOCK,      /* true: the hash device starts with a superblock */
	VI_PARAM_FEC_OFFSET,      /* FEC area start on the FEC device, bytes, multiple of 512 */
	VI_PARAM_FEC_ROOTS,       /* parity bytes per RS block, 2..24 */
	/* Given when their value says so (no VI_GIVEN_* bit). */
	VI_PARAM_FEC_DEVICE,      /* device spec */
	VI_PARAM_FEC_BLOCKS,      /* the kernel table's fec_blocks, > 0 */
	VI_PARAM_CORRUPTION,      /* enum vi_corruption */
	VI_PARAM_IOERROR,         /* enum vi_ioerror */
	VI_PARAM_ZERO_BLOCKS,     /* ignore zero blocks (flag) */
	VI_PARAM_CHECK_ONCE,      /* check at most once (flag) */
	VI_PARAM_SIGNATURE,       /* root-hash signature location */
	VI_PARAM_COUNT,
};

#define VI_PARAM_BIT(p) (1u << (p))
/* The parameters that have a VI_GIVEN_* bit in t->given. */
#define VI_PARAM_GIVEN_BITS (VI_PARAM_BIT(VI_PARAM_FEC_ROOTS + 1) - 1u)

/* struct vi_target's given bits: which parameters its source set. VI_GIVEN_SUPERBLOCK is
 * superblock= written explicitly. */
#define VI_GIVEN_HASH_NAME   VI_PARAM_BIT(VI_PARAM_HASH)
#define VI_GIVEN_FORMAT      VI_PARAM_BIT(VI_PARAM_FORMAT)
#define VI_GIVEN_DATA_BS     VI_PARAM_BIT(VI_PARAM_DATA_BS)
#define VI_GIVEN_HASH_BS     VI_PARAM_BIT(VI_PARAM_HASH_BS)
#define VI_GIVEN_DATA_BLOCKS VI_PARAM_BIT(VI_PARAM_DATA_BLOCKS)
#define VI_GIVEN_HASH_OFFSET VI_PARAM_BIT(VI_PARAM_HASH_OFFSET)
#define VI_GIVEN_SALT        VI_PARAM_BIT(VI_PARAM_SALT)
#define VI_GIVEN_UUID        VI_PARAM_BIT(VI_PARAM_UUID)
#define VI_GIVEN_SUPERBLOCK  VI_PARAM_BIT(VI_PARAM_SUPERBLOCK)
#define VI_GIVEN_FEC_OFFSET  VI_PARAM_BIT(VI_PARAM_FEC_OFFSET)
#define VI_GIVEN_FEC_ROOTS   VI_PARAM_BIT(VI_PARAM_FEC_ROOTS)

/* The syntaxes that name parameters. */
enum vi_spelling {
	VI_SPELL_VERITYSETUP = 0, /* veritysetup's long options, without "--": "data-block-size" */
	VI_SPELL_TABLE,           /* the kernel's verity table: "fec_roots", "panic_on_corruption" */
	VI_SPELL_VOPTS,           /* systemd's veritytab words and ours: "fec-roots" */
	VI_SPELL_MANIFEST,        /* the signed manifest's keys: "hash-algorithm", "on-corruption" */
	VI_SPELL_COUNT,
};

/* The name of p in syntax s; NULL when s has no word for it (the table's positional
 * parameters; VI_PARAM_CORRUPTION and VI_PARAM_IOERROR outside the manifest, where the
 * modes are words of their own). */
const char *vi_param_name(enum vi_param p, enum vi_spelling s);

/* The parameter named w[0..n) in syntax s, or -1. */
int vi_param_lookup(const char *w, size_t n, enum vi_spelling s);

/* The word of a corruption / I/O-error mode in syntax s ("panic_on_corruption",
 * "panic-on-corruption", "panic"; "eio" for the default in the manifest); NULL for none. */
const char *vi_corruption_word(enum vi_corruption c, enum vi_spelling s);
const char *vi_ioerror_word(enum vi_ioerror e, enum vi_spelling s);
/* The mode a word names in syntax s: 0 and *ret set, or -EINVAL. */
int vi_corruption_lookup(const char *w, size_t n, enum vi_spelling s, enum vi_corruption *ret);
int vi_ioerror_lookup(const char *w, size_t n, enum vi_spelling s, enum vi_ioerror *ret);

/* Whether p takes a value (word=value, key value, word arg); flags and modes do not. */
bool vi_param_has_value(enum vi_param p);

/* The range of a numeric parameter in words a refusal can quote ("must be between 2 and 24"),
 * NULL for the others. */
const char *vi_param_range(enum vi_param p);

/* The range rule of a numeric parameter (block sizes: vi_block_size_ok): NULL when v is in range, else why not, in words a
 * refusal can quote ("not a power of two between 512 and 524288"). Parameters without a
 * numeric range return NULL. */
const char *vi_param_range_check(enum vi_param p, uint64_t v);

/* veritysetup's defaults for what a superblock would say: sha256, format 1, 4096-byte blocks,
 * each filled in only where given (VI_GIVEN_* bits) does not have it. */
void vi_params_fill_defaults(struct vi_params *p, uint32_t given);

/* The given set of t (see above): VI_PARAM_BIT of every parameter t was given. */
uint32_t vi_target_given(const struct vi_target *t);

/* A value for vi_target_set: num for numbers, booleans, modes and flags; s[0..len) for the
 * hash name, the salt, the 16 UUID bytes, the FEC device spec and the signature location. */
struct vi_param_value {
	uint64_t num;
	const void *s;
	size_t len;
};

/* Set parameter p of t to v under the repeat rule, and mark it given. -ERANGE: v is out of p's
 * range (vi_param_range_check; an unknown hash algorithm, a salt over VERITY_MAX_SALT bytes, a
 * UUID not of 16 bytes); -ENAMETOOLONG: a string that does not fit; -EEXIST: p was given with
 * another value. t is unchanged on failure. Strings are stored as given: syntax checks are the
 * parser's. */
int vi_target_set(struct vi_target *t, enum vi_param p, const struct vi_param_value *v);
int vi_target_set_num(struct vi_target *t, enum vi_param p, uint64_t num);
int vi_target_set_str(struct vi_target *t, enum vi_param p, const void *s, size_t len);

/* Whether a and b hold the same value of p. */
bool vi_target_same(const struct vi_target *a, const struct vi_target *b, enum vi_param p);

/* The first parameter in mask that a was given and b holds another value of (or was not
 * given), or -1. */
int vi_target_conflict(const struct vi_target *a, const struct vi_target *b, uint32_t mask);

/* p of t as one option in syntax s, appended to out (at *pos, NUL-terminated): VI_SPELL_VOPTS
 * "word=value" or "word" (flags, modes), preceded by a comma unless *pos is 0;
 * VI_SPELL_MANIFEST "key value\n". Nothing for a flag that is off or a default mode.
 * -ENOBUFS when it does not fit; -EINVAL for a syntax without a word for p. */
int vi_param_format(const struct vi_target *t, enum vi_param p, enum vi_spelling s, char *out,
		    size_t out_size, size_t *pos);

/* True when t is disabled or has a signature source: root-hash-signature= / verity.sig=, a
 * dm-mod.create root_hash_sig_key_desc, or (root only) verity.manifest=. Used for
 * verity.require_signature and the policy's require_signature=. */
bool vi_target_has_signature(const struct vi_config *cfg, const struct vi_target *t);

#endif
