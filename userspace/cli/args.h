// SPDX-License-Identifier: GPL-2.0-only
// Command-line words, iproute2 style: keywords match by unambiguous prefix
// ("dev sh" is "dev show"), global options may stand anywhere.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace vg {

struct GlobalOptions {
	bool json = false;
	bool pretty = false;
	bool details = false;		// -d: device settings and state
	int stats = 0;			// -s: more statistics
	bool help = false;
	bool version = false;
	std::string batch;		// -b FILE: commands from FILE ("-": stdin)
	bool force = false;		// -force: a batch goes on after errors
};

class UsageError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

class Args {
public:
	// Splits argv into global options and the remaining words; throws
	// UsageError for an unknown option.
	Args(int argc, const char *const argv[], GlobalOptions &opts);
	explicit Args(std::vector<std::string> words) : words_(std::move(words)) {}

	bool empty() const { return pos_ >= words_.size(); }
	const std::string &peek() const;
	std::string next(const char *what);  // throws UsageError when empty
	// If the next word is a prefix of keyword, consume it.
	bool accept(const char *keyword);
	// Rejects leftover words.
	void done() const;

private:
	std::vector<std::string> words_;
	size_t pos_ = 0;
};

// True if word is a non-empty prefix of keyword.
bool matches(const std::string &word, const char *keyword);

// Splits a batch line into words: blanks separate, '#' starts a comment,
// double quotes group ("a b").
std::vector<std::string> split_line(const std::string &line);

}  // namespace vg
