package datagenerator;
/**
 * Prints n unscaled streams of the Java benchmark's artificial generator (datagenerator/Generator.java), one per line,
 * comma separated, as StreamScalerAndStretcher draws them (one Generator, seeded in its constructor), for the shape
 * comparison in nbs/02_data.ipynb. Optional: the period length's deviation and the starting value's spread.
 *
 *   javac -nowarn -d /tmp/jclasses -cp "/path/to/streamdp-benchmark/lib/*" \
 *       $(find /path/to/streamdp-benchmark/src -name "*.java") benchmarks/java/GenDump.java
 *   java -cp "/tmp/jclasses:/path/to/streamdp-benchmark/lib/*" datagenerator.GenDump LENGTH PERIOD BASIS N [SD SPREAD]
 */
public class GenDump {
    public static void main(String[] a) {
        int length = Integer.parseInt(a[0]), period = Integer.parseInt(a[1]), n = Integer.parseInt(a[3]);
        double basis = Double.parseDouble(a[2]);
        java.io.PrintStream out = System.out;
        System.setOut(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        Generator g = new Generator(length, period, basis);
        if (a.length > 4) { g.deviation_period_length = Double.parseDouble(a[4]); g.avg_deviation_period_value = Double.parseDouble(a[5]); }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            double[] s = g.generate_internal();
            for (int t = 0; t < s.length; t++) { if (t > 0) sb.append(','); sb.append(s[t]); }
            sb.append('\n');
        }
        out.print(sb);
    }
}
