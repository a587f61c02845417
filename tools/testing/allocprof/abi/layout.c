// SPDX-License-Identifier: GPL-2.0
/*
 * Never loaded: built with -g against a kernel so that pahole can print,
 * from its debug information, the layouts of the structs that the series
 * must leave as 6.1 has them when profiling is compiled out (abi-check.sh).
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "slab.h"

struct kmem_cache abi_kmem_cache;
struct slab abi_slab;
struct page abi_page;
struct module abi_module;

MODULE_LICENSE("GPL");
