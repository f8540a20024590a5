// SPDX-License-Identifier: GPL-2.0-only
#include "args.h"

#include <cstring>
#include <stdexcept>

namespace vg {

bool matches(const std::string &word, const char *keyword)
{
	return !word.empty() && word.size() <= strlen(keyword) &&
	       strncmp(keyword, word.c_str(), word.size()) == 0;
}

Args::Args(int argc, const char *const argv[], GlobalOptions &opts)
{
	for (int i = 1; i < argc; i++) {
		std::string w = argv[i];

		if (w == "-j" || w == "-json" || w == "--json")
			opts.json = true;
		else if (w == "-p" || w == "-pretty" || w == "--pretty")
			opts.pretty = true;
		else if (w == "-h" || w == "-help" || w == "--help")
			opts.help = true;
		else if (w == "-V" || w == "-Version" || w == "--version")
			opts.version = true;
		else if (w.size() > 1 && w[0] == '-')
			throw UsageError("unknown option \"" + w + "\"");
		else
			words_.push_back(w);
	}
}

const std::string &Args::peek() const
{
	static const std::string none;

	return empty() ? none : words_[pos_];
}

std::string Args::next(const char *what)
{
	if (empty())
		throw UsageError(std::string("missing ") + what);
	return words_[pos_++];
}

bool Args::accept(const char *keyword)
{
	if (empty() || !matches(words_[pos_], keyword))
		return false;
	pos_++;
	return true;
}

void Args::done() const
{
	if (!empty())
		throw UsageError("unexpected argument \"" + words_[pos_] + "\"");
}

}  // namespace vg
