/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one clock of the agent's measurements and device waits. */
#ifndef VERITY_CLOCK_H
#define VERITY_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds: never jumps with the wall clock, which an initramfs often
 * sets (or a RTC-less machine corrects) during the boot. */
uint64_t vi_now_ms(void);

/* The same clock in microseconds, for steps that take a few milliseconds. */
uint64_t vi_now_us(void);

#endif
