//! The page as a 1996 editor would have left it: HTML 3.2 with tables, `<font>` and
//! upper- and lower-case markup mixed.
//!
//! `[[U:path]]` expands to `SRC="path" WIDTH=w HEIGHT=h` and `[[l:path]]` to the same in lower
//! case, with the real pixel size. `[[NEWS]]`, `[[PRODUCTS]]`, `[[DOWNLOADS]]` and `[[ARCHIVE]]`
//! are generated.

pub const PAGE: &str = r##"<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<HTML>
<HEAD>
<TITLE>Welcome to Microscape</TITLE>
<META NAME="description" CONTENT="Microscape Communications: the Voyager web browser, Harbor Server, Scribe page editor and Postbox mail for the Internet and your intranet.">
<META NAME="keywords" CONTENT="Microscape, Voyager, Harbor Server, Scribe, Postbox, Compass, ScapeScript, browser, web server, intranet, Internet software, download">
</HEAD>
<BODY BGCOLOR="#FFFFFF" BACKGROUND="images/bg_paper.gif" TEXT="#000000" LINK="#003399" VLINK="#663366" ALINK="#CC0000">
<BASEFONT SIZE=3>
<A NAME="top"></A>

<!-- ===================== MASTHEAD ===================== -->
<CENTER>
<TABLE WIDTH=600 BORDER=0 CELLPADDING=0 CELLSPACING=0>
<TR>
<TD WIDTH=176 VALIGN=TOP><A HREF="#top"><IMG [[U:images/logo.gif]] BORDER=0 ALT="Microscape Communications"></A></TD>
<TD WIDTH=384 ALIGN=RIGHT VALIGN=TOP><FONT FACE="Arial,Helvetica" SIZE=1 COLOR="#666666">Saturday, December 7, 1996<BR>
<A HREF="http://www.example.com/sitemap.html">Site Map</A> |
<A HREF="http://www.example.com/help/">Help</A> |
<A HREF="http://www.example.com/international/">International</A> |
<A HREF="mailto:webmaster@example.com">Webmaster</A></FONT><BR>
<IMG SRC="images/spacer.gif" WIDTH=1 HEIGHT=6 ALT=""><BR>
<FONT FACE="Arial,Helvetica" SIZE=2><B>Over 9 million people use Voyager.<BR>Shouldn't you?</B></FONT></TD>
<TD WIDTH=40 ALIGN=RIGHT VALIGN=TOP><A HREF="#top"><IMG [[U:images/throbber.gif]] BORDER=0 ALT="M"></A></TD>
</TR>
<TR>
<TD COLSPAN=3 ALIGN=CENTER><IMG SRC="images/spacer.gif" WIDTH=600 HEIGHT=4 ALT=""><BR>
<A HREF="http://www.example.com/voyager/download/"><IMG [[U:images/banner_ad.gif]] BORDER=0 ALT="Microscape Voyager 4.0 - download it free"></A></TD>
</TR>
</TABLE>
</CENTER>
<br clear=all>

<!-- ===================== NAVIGATION (client-side image map) ===================== -->
<center>
<img [[l:images/navbar.gif]] border=0 usemap="#nav" alt="Home | News | Products | Support | Search">
<map name="nav">
<area shape=rect coords="0,0,119,27" href="#top" alt="Home">
<area shape=rect coords="120,0,239,27" href="#news" alt="News">
<area shape=rect coords="240,0,359,27" href="#products" alt="Products">
<area shape=rect coords="360,0,479,27" href="#support" alt="Support">
<area shape=rect coords="480,0,599,27" href="#search" alt="Search">
</map>
</center>
<BR CLEAR=ALL>

<CENTER><FONT FACE="Arial,Helvetica" SIZE=+2 COLOR="#003366"><B>Welcome to Microscape</B></FONT></CENTER>
<CENTER><font size=2 color="#666666"><i>Software for the open Internet and the enterprise intranet</i></font></CENTER>
<P>

<!-- ===================== THREE COLUMNS ===================== -->
<CENTER>
<TABLE WIDTH=600 BORDER=0 CELLPADDING=0 CELLSPACING=0>
<TR>

<!-- ======== left column ======== -->
<TD WIDTH=140 VALIGN=TOP BGCOLOR="#003366" BACKGROUND="images/bar_left.gif">
<IMG SRC="images/spacer.gif" WIDTH=140 HEIGHT=6 ALT=""><BR>
<CENTER>
<A HREF="#news"><IMG [[U:images/buttons/news.gif]] BORDER=0 VSPACE=2 ALT="News"></A><BR>
<A HREF="#products"><IMG [[U:images/buttons/products.gif]] BORDER=0 VSPACE=2 ALT="Products"></A><BR>
<A HREF="#support"><IMG [[U:images/buttons/support.gif]] BORDER=0 VSPACE=2 ALT="Support"></A><BR>
<A HREF="#downloads"><IMG [[U:images/buttons/download.gif]] BORDER=0 VSPACE=2 ALT="Download"></A><BR>
<A HREF="#company"><IMG [[U:images/buttons/company.gif]] BORDER=0 VSPACE=2 ALT="Company"></A><BR>
</CENTER>
<IMG SRC="images/spacer.gif" WIDTH=1 HEIGHT=10 ALT=""><BR>
<TABLE WIDTH=140 BORDER=0 CELLPADDING=6 CELLSPACING=0>
<TR><TD>
<FONT FACE="Arial,Helvetica" SIZE=2 COLOR="#FFCC00"><B>QUICK LINKS</B></FONT><BR>
<FONT FACE="Arial,Helvetica" SIZE=1 COLOR="#FFFFFF">
<A HREF="http://www.example.com/voyager/"><FONT COLOR="#FFFFFF">Voyager 4.0</FONT></A><BR>
<A HREF="http://www.example.com/harbor/"><FONT COLOR="#FFFFFF">Harbor Server</FONT></A><BR>
<A HREF="http://www.example.com/scribe/"><FONT COLOR="#FFFFFF">Scribe Editor</FONT></A><BR>
<A HREF="http://www.example.com/postbox/"><FONT COLOR="#FFFFFF">Postbox Mail</FONT></A><BR>
<A HREF="http://www.example.com/compass/"><FONT COLOR="#FFFFFF">Compass Directory</FONT></A><BR>
<A HREF="http://www.example.com/scapescript/"><FONT COLOR="#FFFFFF">ScapeScript</FONT></A><BR>
<A HREF="http://www.example.com/channels/"><FONT COLOR="#FFFFFF">Channel Guide</FONT></A><BR>
<A HREF="http://www.example.com/store/"><FONT COLOR="#FFFFFF">Microscape Store</FONT></A><BR>
<A HREF="http://www.example.com/partners/"><FONT COLOR="#FFFFFF">Partner Program</FONT></A><BR>
<A HREF="http://www.example.com/jobs/"><FONT COLOR="#FFFFFF">Jobs at Microscape</FONT></A><BR>
</FONT>
<P>
<FONT FACE="Arial,Helvetica" SIZE=2 COLOR="#FFCC00"><B>THIS WEEK</B></FONT><BR>
<FONT FACE="Arial,Helvetica" SIZE=1 COLOR="#CCDDEE">
Live chat with the Voyager<BR>team, Thursday 11am PST.<BR>
<A HREF="http://www.example.com/chat/"><FONT COLOR="#FFFFFF"><U>Join in</U></FONT></A>
</FONT>
<P>
<FONT FACE="Arial,Helvetica" SIZE=1 COLOR="#CCDDEE">
<A HREF="mailto:info@example.com"><IMG [[U:images/icon_mail.gif]] BORDER=0 ALIGN=ABSMIDDLE HSPACE=2 ALT="Mail"></A>
<A HREF="mailto:info@example.com"><FONT COLOR="#FFFFFF">Write to us</FONT></A>
</FONT>
</TD></TR>
</TABLE>
<IMG SRC="images/spacer.gif" WIDTH=1 HEIGHT=30 ALT="">
</TD>

<TD WIDTH=10><IMG SRC="images/spacer.gif" WIDTH=10 HEIGHT=1 ALT=""></TD>

<!-- ======== middle column ======== -->
<TD WIDTH=300 VALIGN=TOP>
<table width=300 border=0 cellpadding=0 cellspacing=0>
<tr>
<td width=12 bgcolor="#003366"><img [[l:images/corner_tl.gif]] alt=""></td>
<td width=276 bgcolor="#003366" align=center><font face="Arial,Helvetica" size=1 color="#FFFFFF"><b>TODAY AT MICROSCAPE</b></font></td>
<td width=12 bgcolor="#003366"><img [[l:images/corner_tr.gif]] alt=""></td>
</tr>
</table>
<a href="http://www.example.com/voyager/tour/"><img [[l:images/photo_hero.gif]] border=0 alt="Voyager takes you further"></a><br>
<font face="Arial,Helvetica" size=1 color="#666666"><i>Photo: the Voyager 4.0 preview tour starts in the mountains.</i></font>
<p>
<a href="http://www.example.com/voyager/"><img [[l:images/h_title.gif]] border=0 alt="Microscape Voyager 4.0"></a><br>
<font face="Times New Roman,Times" size=3>
The next generation of <b>Voyager</b> is here. Browse, read mail, join discussion groups,
edit pages and receive <b>push channels</b>, all from one window. The preview release is
<u>free</u> for everyone during the evaluation period.
<a href="http://www.example.com/voyager/download/"><img [[l:images/more.gif]] border=0 alt="More"></a>
</font>
<p>
<A NAME="news"></A>
<IMG [[U:images/h_whatsnew.gif]] ALT="What's New"><BR>
<IMG SRC="images/spacer.gif" WIDTH=1 HEIGHT=4 ALT=""><BR>
[[NEWS]]
<IMG [[U:images/rule_fade.gif]] ALT="----"><BR>
<FONT FACE="Arial,Helvetica" SIZE=2><A HREF="http://www.example.com/news/archive.html">News archive</A> |
<A HREF="http://www.example.com/news/press.html">Press releases</A> |
<A HREF="http://www.example.com/news/subscribe.html">Get news by mail</A></FONT>
<P>
<A NAME="products"></A>
<IMG [[U:images/h_products.gif]] ALT="Products"><BR>
<TABLE WIDTH=300 BORDER=0 CELLPADDING=2 CELLSPACING=0>
<TR>
<TD VALIGN=TOP>
<A HREF="http://www.example.com/voyager/"><IMG [[U:images/photo_box.gif]] ALIGN=LEFT HSPACE=6 VSPACE=4 BORDER=0 ALT="Voyager 4.0 box"></A>
<FONT FACE="Arial,Helvetica" SIZE=2><B>Voyager 4.0 Professional Edition</B></FONT><BR>
<FONT SIZE=2>Everything in Voyager plus the Compass address book, calendar, group scheduling and
a 3270 terminal window for the mainframe crowd. Boxed with a printed manual and 90 days of
telephone support.<BR>
<FONT COLOR="#CC0000"><B>$79 retail, $49 upgrade</B></FONT><BR>
<A HREF="http://www.example.com/store/voyager-pro.html">Buy it now</A></FONT>
</TD>
</TR>
</TABLE>
<BR CLEAR=ALL>
[[PRODUCTS]]
<P>
<A NAME="developers"></A>
<IMG [[U:images/h_developers.gif]] ALT="Developers"><BR>
<font size=2>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/scapescript/">ScapeScript 1.2 reference and examples</a><br>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/plugins/">Writing Voyager plug-ins in C and C++</a><br>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/harbor-api/">Harbor Server API: filters and handlers</a><br>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/channels/">Build a push channel in one afternoon</a><br>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/frames/">Frames, tables and layers: a style guide</a><br>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/devcon97/">DevCon '97 call for papers (deadline January 15)</a><br>
</font>
<P>
<TABLE WIDTH=300 BORDER=1 CELLPADDING=4 CELLSPACING=0 BGCOLOR="#FFFFEE">
<TR>
<TD WIDTH=80 VALIGN=TOP><A HREF="http://www.example.com/dev/devcon97/"><IMG [[U:images/thumb_devcon.gif]] BORDER=0 ALT="DevCon stage"></A></TD>
<TD VALIGN=TOP><FONT SIZE=2><B>DevCon '97</B><BR>Four days, ninety sessions, one keynote you will not want to miss.
March 10-13, Bayview Convention Center. <A HREF="http://www.example.com/dev/devcon97/register.html">Register early and save $200.</A></FONT></TD>
</TR>
<TR>
<TD WIDTH=80 VALIGN=TOP><A HREF="http://www.example.com/labs/"><IMG [[U:images/thumb_lab.gif]] BORDER=0 ALT="Microscape Labs at night"></A></TD>
<TD VALIGN=TOP><FONT SIZE=2><B>Microscape Labs</B><BR>Try tomorrow's technology today: the experimental 3-D bookmark
browser, a speech plug-in and the new layout engine are waiting for brave testers.
<A HREF="http://www.example.com/labs/">Visit the Labs.</A></FONT></TD>
</TR>
</TABLE>
</TD>

<TD WIDTH=10><IMG SRC="images/spacer.gif" WIDTH=10 HEIGHT=1 ALT=""></TD>

<!-- ======== right column ======== -->
<TD WIDTH=140 VALIGN=TOP BGCOLOR="#FFFFCC">
<A NAME="search"></A>
<FORM METHOD=GET ACTION="http://www.example.com/cgi-bin/search">
<TABLE WIDTH=140 BORDER=0 CELLPADDING=4 CELLSPACING=0 BGCOLOR="#FFCC00">
<TR><TD NOWRAP><FONT FACE="Arial,Helvetica" SIZE=2 COLOR="#003366"><B>SEARCH</B></FONT><BR>
<INPUT TYPE=text NAME=q SIZE=12 MAXLENGTH=80><BR>
<SELECT NAME=where><OPTION SELECTED>This site<OPTION>The Web<OPTION>Newsgroups</SELECT><BR>
<INPUT TYPE=image SRC="images/buttons/search.gif" WIDTH=64 HEIGHT=20 BORDER=0 ALT="Search" VSPACE=3>
</TD></TR>
</TABLE>
</FORM>
<FORM METHOD=GET ACTION="http://www.example.com/cgi-bin/jump">
<FONT FACE="Arial,Helvetica" SIZE=1><B>JUMP TO:</B></FONT><BR>
<SELECT NAME=to>
<OPTION VALUE="voyager">Voyager
<OPTION VALUE="harbor">Harbor Server
<OPTION VALUE="scribe">Scribe
<OPTION VALUE="postbox">Postbox
<OPTION VALUE="compass">Compass
<OPTION VALUE="support">Support
</SELECT>
<INPUT TYPE=image SRC="images/buttons/go.gif" WIDTH=28 HEIGHT=20 BORDER=0 ALT="Go" ALIGN=ABSMIDDLE>
</FORM>
<center>
<a href="http://www.example.com/voyager/download/"><img [[l:images/badge_free.gif]] border=0 vspace=4 alt="Free download"></a><br>
<a href="http://www.example.com/bestviewed/"><img [[l:images/badge_best.gif]] border=0 vspace=4 alt="Best viewed with Microscape"></a>
</center>
<P>
<A NAME="downloads"></A>
<TABLE WIDTH=140 BORDER=0 CELLPADDING=3 CELLSPACING=0>
<TR><TD BGCOLOR="#003366"><IMG [[U:images/icon_disk.gif]] ALIGN=LEFT ALT="Disk"><FONT FACE="Arial,Helvetica" SIZE=2 COLOR="#FFFFFF"><B>DOWNLOADS</B></FONT><BR CLEAR=ALL></TD></TR>
[[DOWNLOADS]]
</TABLE>
<P>
<A NAME="support"></A>
<TABLE WIDTH=140 BORDER=0 CELLPADDING=3 CELLSPACING=0>
<TR><TD BGCOLOR="#003366"><FONT FACE="Arial,Helvetica" SIZE=2 COLOR="#FFFFFF"><B>SUPPORT</B></FONT></TD></TR>
<TR><TD><FONT SIZE=1>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="http://www.example.com/support/kb/">Knowledge base</A><BR>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="http://www.example.com/support/faq/">Frequent questions</A><BR>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="http://www.example.com/support/forums/">User forums</A><BR>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="http://www.example.com/support/security/">Security notices</A><BR>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="http://www.example.com/support/plans/">Support plans</A><BR>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="mailto:support@example.com">Mail support</A>
</FONT></TD></TR>
</TABLE>
<P>
<TABLE WIDTH=140 BORDER=0 CELLPADDING=3 CELLSPACING=0>
<TR><TD ALIGN=CENTER><A HREF="http://www.example.com/international/"><IMG [[U:images/icon_globe.gif]] BORDER=0 ALT="Globe"></A><BR>
<FONT FACE="Arial,Helvetica" SIZE=1><B>MICROSCAPE WORLDWIDE</B><BR>
<A HREF="http://www.example.com/intl/de/">Deutsch</A> |
<A HREF="http://www.example.com/intl/fr/">Fran&ccedil;ais</A> |
<A HREF="http://www.example.com/intl/jp/">Nihongo</A> |
<A HREF="http://www.example.com/intl/es/">Espa&ntilde;ol</A> |
<A HREF="http://www.example.com/intl/pt/">Portugu&ecirc;s</A> |
<A HREF="http://www.example.com/intl/it/">Italiano</A></FONT></TD></TR>
</TABLE>
<P>
<CENTER><FONT SIZE=1 COLOR="#666666">Photo of the day:</FONT><BR>
<A HREF="http://www.example.com/photo/"><IMG [[U:images/photo_earth.gif]] BORDER=0 ALT="The Earth from orbit"></A></CENTER>
</TD>
</TR>
</TABLE>
</CENTER>

<P>
<CENTER><IMG [[U:images/rule_blue.gif]] ALT="________"></CENTER>
<P>

<!-- ===================== COMPANY ===================== -->
<A NAME="company"></A>
<CENTER>
<TABLE WIDTH=600 BORDER=0 CELLPADDING=4 CELLSPACING=2 BGCOLOR="#EEEEEE">
<TR>
<TD COLSPAN=3 BGCOLOR="#003366"><CENTER><FONT FACE="Arial,Helvetica" SIZE=+2 COLOR="#FFCC00">Inside Microscape</FONT></CENTER></TD>
</TR>
<TR>
<TD WIDTH=200 VALIGN=TOP ALIGN=CENTER><A HREF="http://www.example.com/company/"><IMG [[U:images/photo_office.gif]] BORDER=0 ALT="Microscape headquarters"></A><BR>
<FONT SIZE=2><B>Headquarters</B><BR>1200 Harbor Point Road, Bayview.
<A HREF="http://www.example.com/company/visit.html">Plan a visit</A></FONT></TD>
<TD WIDTH=200 VALIGN=TOP ALIGN=CENTER><A HREF="http://www.example.com/company/campus.html"><IMG [[U:images/photo_campus.gif]] BORDER=0 ALT="The Bayview campus"></A><BR>
<FONT SIZE=2><B>The campus</B><BR>Where 2,400 people build the open Web.
<A HREF="http://www.example.com/jobs/">We are hiring</A></FONT></TD>
<TD WIDTH=200 VALIGN=TOP ALIGN=CENTER><A HREF="http://www.example.com/company/team.html"><IMG [[U:images/thumb_team.gif]] BORDER=0 ALT="Team outing at dusk"></A><BR>
<FONT SIZE=2><B>The team</B><BR>Our annual lake retreat, as seen by the Voyager camera club.</FONT></TD>
</TR>
<TR>
<TD COLSPAN=2 VALIGN=TOP><IMG [[U:images/worldmap.gif]] ALIGN=LEFT HSPACE=6 ALT="Offices worldwide">
<FONT SIZE=2><B>Offices in 22 countries.</B> Microscape products are sold in more than 100 countries
through our own offices and a network of 3,000 resellers.
<A HREF="http://www.example.com/company/offices.html">Find the office near you.</A></FONT></TD>
<TD VALIGN=TOP><A HREF="http://www.example.com/investor/"><IMG [[U:images/chart.gif]] BORDER=0 ALT="Quarterly revenue chart"></A><BR>
<FONT SIZE=1>Quarterly revenue, fiscal 1996. <A HREF="http://www.example.com/investor/">Investor relations</A></FONT></TD>
</TR>
</TABLE>
</CENTER>
<P>

<!-- ===================== PRESS ARCHIVE ===================== -->
<CENTER>
<TABLE WIDTH=600 BORDER=0 CELLPADDING=2 CELLSPACING=0>
<TR><TD BGCOLOR="#CCCCCC"><FONT FACE="Arial,Helvetica" SIZE=2><B>&nbsp;Earlier this year</B></FONT></TD></TR>
<TR><TD><FONT SIZE=2>
[[ARCHIVE]]
</FONT></TD></TR>
</TABLE>
</CENTER>

<!-- ===================== FOOTER ===================== -->
<HR SIZE=1 NOSHADE WIDTH=600>
<center>
<table border=0 cellpadding=2 cellspacing=0>
<tr>
<td nowrap><font face="Arial,Helvetica" size=1>
<a href="#top">Top</a> |
<a href="#news">News</a> |
<a href="#products">Products</a> |
<a href="#developers">Developers</a> |
<a href="#support">Support</a> |
<a href="#downloads">Downloads</a> |
<a href="#company">Company</a> |
<a href="http://www.example.com/sitemap.html">Site map</a> |
<a href="mailto:webmaster@example.com">Feedback</a>
</font></td>
</tr>
</table>
<font size=1 color="#666666">Copyright &copy; 1996 Microscape Communications Corporation. All rights reserved.<br>
Microscape, Voyager, Harbor, Scribe, Postbox, Compass and ScapeScript are invented names used for a test page.<br>
<tt>This page is best viewed at 640x480 or above.</tt></font>
</center>
<br clear=all>
</BODY>
</HTML>
"##;
