// SPDX-License-Identifier: GPL-2.0
/* wl-true: the program wl-forkexec runs; a static binary that exits 0. */
int main(void)
{
	return 0;
}
