// SPDX-License-Identifier: GPL-2.0-only
#include "args.h"

#include <cctype>
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
		else if (w == "-d" || w == "-details" || w == "--details")
			opts.details = true;
		else if (w == "-s" || w == "-stats" || w == "--stats" ||
			 w == "-statistics")
			opts.stats++;
		else if (w == "-f" || w == "-force" || w == "--force")
			opts.force = true;
		else if (w == "-h" || w == "-help" || w == "--help")
			opts.help = true;
		else if (w == "-V" || w == "-Version" || w == "--version")
			opts.version = true;
		else if (w == "-b" || w == "-batch" || w == "--batch") {
			if (++i == argc)
				throw UsageError("option \"" + w +
						 "\" needs a file name");
			opts.batch = argv[i];
		} else if (w.size() > 1 && w[0] == '-')
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

std::vector<std::string> split_line(const std::string &line)
{
	std::vector<std::string> words;
	std::string cur;
	bool in_word = false, quoted = false;

	for (char c : line) {
		if (quoted) {
			if (c == '"')
				quoted = false;
			else
				cur += c;
		} else if (c == '"') {
			quoted = in_word = true;
		} else if (c == '#') {
			break;
		} else if (isspace(static_cast<unsigned char>(c))) {
			if (in_word)
				words.push_back(cur);
			cur.clear();
			in_word = false;
		} else {
			cur += c;
			in_word = true;
		}
	}
	if (quoted)
		throw UsageError("unterminated quote");
	if (in_word)
		words.push_back(cur);
	return words;
}

}  // namespace vg
