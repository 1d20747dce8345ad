/*
 * GuavaProbe: the Java half of `make test-guava` (driven by tools/test-guava.py). It lets the
 * real Guava library read, answer for, build and compare Bloom filters stored in the format of
 * Guava's BloomFilter.writeTo(), always with Funnels.byteArrayFunnel(), so an item is hashed as
 * its exact bytes -- the same bytes rsbloom hashes.
 *
 * Build (Debian: apt-get install default-jdk-headless libguava-java, Guava 31.1):
 *   javac -cp /usr/share/java/guava.jar -d target/guava-check tools/guava/GuavaProbe.java
 * Run:
 *   java -cp /usr/share/java/guava.jar:target/guava-check GuavaProbe COMMAND ARGS...
 *
 * Item files hold one item per line as hex (either case); an empty line is the empty item.
 *   query  FILTER ITEMS        print "HEX<TAB>1" or "HEX<TAB>0" (Guava's mightContain) per item
 *   verify FILTER EXPECTED     EXPECTED lines are "HEX<TAB>0|1"; list every disagreement with
 *                              Guava on stderr, exit 1 if there is any
 *   create N P ITEMS OUT       BloomFilter.create(funnel, N, P), put each item, writeTo(OUT)
 *   same   A B                 exit 0 if Guava reads A and B as equal filters, else 1
 * A filter file whose length is not what its header says (6 + 8 * word count) is refused.
 * Exit status: 0 success, 1 disagreement, 2 bad usage, 3 unreadable or malformed input.
 */

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import com.google.common.io.BaseEncoding;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

public final class GuavaProbe {
  private static final Funnel<byte[]> FUNNEL = Funnels.byteArrayFunnel();
  private static final BaseEncoding HEX = BaseEncoding.base16().lowerCase();

  /** Input the probe cannot use; reported on stderr with exit status 3. */
  private static final class BadInput extends Exception {
    private static final long serialVersionUID = 1L;

    BadInput(String message) {
      super(message);
    }
  }

  private GuavaProbe() {}

  public static void main(String[] args) {
    int status;
    try {
      status = dispatch(args);
    } catch (BadInput | IOException | IllegalArgumentException e) {
      System.err.println("GuavaProbe: " + e.getMessage());
      status = 3;
    }
    System.out.flush();
    System.exit(status);
  }

  private static int dispatch(String[] args) throws BadInput, IOException {
    String command = args.length > 0 ? args[0] : "";
    switch (command) {
      case "query":
        if (args.length != 3) break;
        return query(args[1], args[2]);
      case "verify":
        if (args.length != 3) break;
        return verify(args[1], args[2]);
      case "create":
        if (args.length != 5) break;
        return create(args[1], args[2], args[3], args[4]);
      case "same":
        if (args.length != 3) break;
        return same(args[1], args[2]);
      default:
        break;
    }
    System.err.println(
        "usage: GuavaProbe query FILTER ITEMS | verify FILTER EXPECTED"
            + " | create N P ITEMS OUT | same A B");
    return 2;
  }

  private static int query(String filterPath, String itemsPath) throws BadInput, IOException {
    BloomFilter<byte[]> filter = readFilter(filterPath);
    StringBuilder out = new StringBuilder();
    for (String line : readLines(itemsPath)) {
      out.append(line).append('\t').append(filter.mightContain(decode(line)) ? '1' : '0');
      out.append('\n');
    }
    System.out.print(out);
    return 0;
  }

  private static int verify(String filterPath, String expectedPath) throws BadInput, IOException {
    BloomFilter<byte[]> filter = readFilter(filterPath);
    List<String> lines = readLines(expectedPath);
    int wrong = 0;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int tab = line.indexOf('\t');
      String answer = tab < 0 ? "" : line.substring(tab + 1);
      if (!answer.equals("0") && !answer.equals("1")) {
        throw new BadInput(expectedPath + " line " + (i + 1) + ": expected HEX<TAB>0|1");
      }
      String item = line.substring(0, tab);
      boolean guava = filter.mightContain(decode(item));
      if (guava != answer.equals("1")) {
        System.err.println(
            "disagree: item " + item + " expected " + answer + ", Guava says " + (guava ? 1 : 0));
        wrong++;
      }
    }
    System.out.println(lines.size() + " items checked, " + wrong + " disagree with Guava");
    return wrong == 0 ? 0 : 1;
  }

  private static int create(String n, String p, String itemsPath, String outPath)
      throws BadInput, IOException {
    long expectedInsertions;
    double fpp;
    try {
      expectedInsertions = Long.parseLong(n);
      fpp = Double.parseDouble(p);
    } catch (NumberFormatException e) {
      throw new BadInput("create: N must be an integer and P a number, got " + n + " " + p);
    }
    BloomFilter<byte[]> filter = BloomFilter.create(FUNNEL, expectedInsertions, fpp);
    for (String line : readLines(itemsPath)) {
      filter.put(decode(line));
    }
    try (OutputStream out = Files.newOutputStream(Paths.get(outPath))) {
      filter.writeTo(out);
    }
    return 0;
  }

  private static int same(String a, String b) throws BadInput, IOException {
    boolean equal = readFilter(a).equals(readFilter(b));
    System.out.println(equal ? "equal" : "not equal");
    return equal ? 0 : 1;
  }

  /**
   * Guava's readFrom() stops after the words its header announces, so a file with bytes missing
   * or left over could pass unnoticed; check the length against the header first.
   */
  private static BloomFilter<byte[]> readFilter(String path) throws BadInput, IOException {
    byte[] bytes = Files.readAllBytes(Paths.get(path));
    if (bytes.length < 6) {
      throw new BadInput(path + ": " + bytes.length + " bytes, less than the 6-byte header");
    }
    long words = ByteBuffer.wrap(bytes, 2, 4).getInt() & 0xFFFFFFFFL;
    long wanted = 6 + 8 * words;
    if (bytes.length != wanted) {
      throw new BadInput(
          path + ": " + bytes.length + " bytes, but its header (" + words + " words) says "
              + wanted);
    }
    return BloomFilter.readFrom(new ByteArrayInputStream(bytes), FUNNEL);
  }

  private static List<String> readLines(String path) throws IOException {
    return Files.readAllLines(Paths.get(path), StandardCharsets.US_ASCII);
  }

  private static byte[] decode(String hex) throws BadInput {
    try {
      return HEX.decode(hex.trim().toLowerCase());
    } catch (IllegalArgumentException e) {
      throw new BadInput("not a hex item: \"" + hex + "\"");
    }
  }
}
