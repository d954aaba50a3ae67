#!/usr/bin/perl
# Writes Snowball's stopword lists (liblingua-stopwords-perl) for the search lexicon:
# DIR/en.txt, es.txt, pt.txt and fr.txt, one word a line, UTF-8.
use strict;
use warnings;
use Lingua::StopWords qw(getStopWords);

my $dir = shift or die "usage: stopwords.pl DIR\n";
for my $lang (qw(en es pt fr)) {
  my $words = getStopWords($lang, 'UTF-8') or die "stopwords.pl: no list for $lang\n";
  open(my $out, '>', "$dir/$lang.txt") or die "stopwords.pl: cannot write $dir/$lang.txt: $!\n";
  print $out "$_\n" for sort keys %$words;
  close($out) or die "stopwords.pl: cannot write $dir/$lang.txt: $!\n";
}
