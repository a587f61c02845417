// SPDX-License-Identifier: GPL-2.0
// Random slot stores (gcc -O2 night-slots-tlb.c; ./a.out GIB [HOT]): directory of 128 KiB chunks in THP memory (old)
// against one flat array in 4 KiB pages (new), per access in ns.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#define SHIFT 15
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
static uint64_t rng=88172645463325252ull;
static inline uint64_t xr(void){rng^=rng<<13;rng^=rng>>7;rng^=rng<<17;return rng;}
struct dir { unsigned long nr; uint32_t *chunk[]; };
int main(int argc,char**argv){
	unsigned long gib=argc>1?atol(argv[1]):24, frames=gib<<18, hot=argc>2?atol(argv[2]):0;
	long n=20000000; size_t bytes=frames*4;
	uint32_t *flat=mmap(0,bytes,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
	madvise(flat,bytes,MADV_NOHUGEPAGE); memset(flat,0,bytes);
	char *big=aligned_alloc(2<<20,bytes); madvise(big,bytes,MADV_HUGEPAGE); memset(big,0,bytes);
	unsigned long nc=frames>>SHIFT; struct dir *d=malloc(sizeof(*d)+nc*8); d->nr=nc;
	for(unsigned long c=0;c<nc;c++) d->chunk[c]=(uint32_t*)(big+c*(4ul<<SHIFT));
	volatile struct dir *vd=d; uint32_t * volatile vflat=flat;
	unsigned long *pf=malloc(n*8);
	for(long i=0;i<n;i++){ pf[i]= hot ? (xr()%hot)*37%frames : xr()%frames; }
	for(int r=0;r<3;r++){
		double t0=now(); for(long i=0;i<n;i++){ unsigned long p=pf[i]; asm volatile(""::"r"(p)); } double t1=now();
		for(long i=0;i<n;i++){ unsigned long p=pf[i]; struct dir *dd=(struct dir*)vd; unsigned long c=p>>SHIFT; if(c>=dd->nr) continue; uint32_t *ch=dd->chunk[c]; if(!ch) continue; ch[p&((1<<SHIFT)-1)]=i; }
		double t2=now();
		for(long i=0;i<n;i++){ unsigned long p=pf[i]; vflat[p]=i; }
		double t3=now();
		printf("%lu GiB %s: base %.2f ns, directory+THP %.2f ns, flat 4K %.2f ns\n",gib,hot?"hot":"random",(t1-t0)/n,(t2-t1)/n,(t3-t2)/n);
	}
	FILE*f=fopen("/proc/self/smaps_rollup","r");char l[256];while(fgets(l,256,f))if(strstr(l,"AnonHuge"))fputs(l,stdout);
	return 0;
}
