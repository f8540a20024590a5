// SPDX-License-Identifier: GPL-2.0-only
#include "signals.h"

#include <csignal>
#include <cstring>
#include <unistd.h>

namespace vgload {

static volatile sig_atomic_t g_stop_sig;
static volatile sig_atomic_t g_warmup_end;

static void on_stop(int sig)
{
	if (g_stop_sig) {
		static const char msg[] = "vgload: second signal, exiting now\n";

		// write() and _exit() are async-signal-safe.
		ssize_t r = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)r;
		_exit(128 + sig);
	}
	g_stop_sig = sig;
}

static void on_warmup_end(int)
{
	g_warmup_end = 1;
}

void install_signal_handlers()
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	// No SA_RESTART: poll()/accept() must return EINTR so the main
	// thread notices the request immediately.
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
	sa.sa_handler = on_warmup_end;
	sigaction(SIGUSR1, &sa, nullptr);
	signal(SIGPIPE, SIG_IGN);
}

bool stop_requested() { return g_stop_sig != 0; }

bool take_warmup_end()
{
	if (!g_warmup_end)
		return false;
	g_warmup_end = 0;
	return true;
}

const char *stop_signal_name()
{
	switch (g_stop_sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	default: return "";
	}
}

static void mask(int how)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(how, &s, nullptr);
}

void block_stop_signals() { mask(SIG_BLOCK); }
void unblock_stop_signals() { mask(SIG_UNBLOCK); }

}  // namespace vgload
